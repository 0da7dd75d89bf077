// Command httpfloor is the floor of the I2L benchmark: Go's net/http
// answering every /uri-res/I2L?<name> with a 303 whose Location is made
// from the name, with no lookup, no routing and no logging. Under the
// same load as bench/i2l.sh it shows what net/http alone costs on this
// machine, and which latencies come from the machine rather than from
// urikit:
//
//	taskset -c 0 go run ./httpfloor -addr 127.0.0.1:18087 &
//	NAMES=names.txt taskset -c 1 wrk -t1 -c32 -d15s -s i2l.lua http://127.0.0.1:18087
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18087", "address to listen on")
	flag.Parse()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// urn:example:bench:000000012 → …/items/12/view, the location
		// bench/gen gave that name, so the answer is urikit's to the byte.
		_, n, _ := strings.Cut(r.URL.RawQuery, "bench:")
		if n = strings.TrimLeft(n, "0"); n == "" {
			n = "0"
		}
		w.Header().Set("Location", "https://repository.example.org/items/"+n+"/view")
		w.WriteHeader(http.StatusSeeOther)
	})
	fmt.Fprintln(os.Stderr, http.ListenAndServe(*addr, h))
}
