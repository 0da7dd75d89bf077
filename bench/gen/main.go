// Command gen writes the data set of the resolver benchmarks: N records as
// JSON Lines for `urikit import`, the list of their names for the load
// generator, and the same name → location pairs as an nginx map, so that
// urikit and nginx answer exactly the same requests with the same
// redirects.
//
//	go run ./bench/gen -n 1000000 -dir /tmp/bench-1m
//
// The data are a pure function of -n: two runs write the same files.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of records")
	dir := flag.String("dir", ".", "directory for records.jsonl, names.txt and nginx-map.conf")
	flag.Parse()
	if err := run(*n, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Name and URL of record i. The names live under one naming authority
// (urn:example:, RFC 6963's namespace for examples) and differ in their
// last characters, as an authority's serial numbers do.
func name(i int) string     { return fmt.Sprintf("urn:example:bench:%09d", i) }
func location(i int) string { return fmt.Sprintf("https://repository.example.org/items/%d/view", i) }

func run(n int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type out struct {
		f *os.File
		w *bufio.Writer
	}
	open := func(base string) (*out, error) {
		f, err := os.Create(filepath.Join(dir, base))
		if err != nil {
			return nil, err
		}
		return &out{f, bufio.NewWriterSize(f, 1<<20)}, nil
	}
	recs, err := open("records.jsonl")
	if err != nil {
		return err
	}
	names, err := open("names.txt")
	if err != nil {
		return err
	}
	nmap, err := open("nginx-map.conf")
	if err != nil {
		return err
	}
	for i := range n {
		nm, loc := name(i), location(i)
		// Some records have a second location and metadata, as real
		// ones do; the redirect goes to the first location either way.
		fmt.Fprintf(recs.w, `{"urn":%q,"locations":[{"url":%q,"type":"text/html"}`, nm, loc)
		if i%10 == 0 {
			fmt.Fprintf(recs.w, `,{"url":"https://mirror.example.net/%d"}`, i)
		}
		recs.w.WriteString("]")
		if i%7 == 0 {
			fmt.Fprintf(recs.w, `,"metadata":{"title":"Item %d"}`, i)
		}
		recs.w.WriteString("}\n")
		fmt.Fprintln(names.w, nm)
		// The request is /uri-res/I2L?<name>: nginx maps $args.
		fmt.Fprintf(nmap.w, "%s %s;\n", nm, loc)
	}
	for _, o := range []*out{recs, names, nmap} {
		if err := o.w.Flush(); err != nil {
			return err
		}
		if err := o.f.Close(); err != nil {
			return err
		}
	}
	return nil
}
