// Package bench holds the side-by-side benchmarks of urikit against its
// peers — github.com/fredbi/uri, github.com/leodido/go-urn,
// mvdan.cc/xurls/v2 and github.com/contomap/iri — and the tests that pin
// where they disagree. It is a
// module of its own (with a replace directive pointing at the checkout
// above it), so that importing urikit pulls none of the peers into a
// consumer's module graph. Run it from this directory:
//
//	go test -run=^$ -bench=. -benchmem .
//	go test -v -run=Test .
package bench
