// Command fastfloor is a second floor of the I2L benchmark: the answer of
// bench/httpfloor (a 303 whose Location is made from the name, no lookup)
// from valyala/fasthttp instead of net/http. fasthttp is the fastest
// HTTP/1.1 server written in Go that is widely used; it reuses its request
// and response objects and skips much of what net/http does for every
// request. Beside httpfloor it shows how much of urikit's distance to
// nginx a different Go HTTP server could take back. It is here only to
// compare against: urikit itself does not depend on it (this module is
// not urikit's).
//
//	taskset -c 0 go run ./fastfloor -addr 127.0.0.1:18088 &
//	NAMES=names.txt taskset -c 1 wrk -t1 -c32 -d15s -s i2l.lua http://127.0.0.1:18088
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/valyala/fasthttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18088", "address to listen on")
	flag.Parse()
	const prefix = "https://repository.example.org/items/"
	h := func(ctx *fasthttp.RequestCtx) {
		// The same location as httpfloor's and bench/gen's for the name.
		_, n, _ := bytes.Cut(ctx.URI().QueryString(), []byte("bench:"))
		if n = bytes.TrimLeft(n, "0"); len(n) == 0 {
			n = []byte("0")
		}
		loc := make([]byte, 0, len(prefix)+len(n)+5)
		loc = append(append(append(loc, prefix...), n...), "/view"...)
		ctx.Response.Header.SetBytesV("Location", loc)
		ctx.SetStatusCode(fasthttp.StatusSeeOther)
	}
	fmt.Fprintln(os.Stderr, fasthttp.ListenAndServe(*addr, h))
}
