package urn

import "testing"

// BenchmarkParse parses each of benchInputs once per op (16 URNs). The
// side-by-side comparison with github.com/leodido/go-urn is in the bench
// module (../bench), so that the peer is no dependency of this one.
//
// benchInputs are realistic URNs of registered namespaces, all valid under
// both this package and go-urn's RFC 8141 mode (bench/urn_test.go holds
// the same list).
var benchInputs = []string{
	"urn:isbn:0-395-36341-1",
	"urn:ISBN:978-0-395-36341-6",
	"urn:issn:0167-6423",
	"urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
	"urn:ietf:rfc:2648",
	"urn:ietf:params:xml:ns:yang:ietf-interfaces",
	"urn:oid:1.3.6.1.4.1.343",
	"urn:nbn:de:bvb:19-146642",
	"urn:nbn:fi-fe19991055",
	"urn:iso:std:iso:9999:-1:ed-1:en,fr",
	"urn:example:a123%2Cz456",
	"urn:example:weather?=op=map&lat=39.56&lon=-104.85&datetime=1969-07-21T02:56:15Z",
	"urn:example:foo-bar-baz-qux?+CCResolve:cc=uk#somepart",
	"urn:epc:id:sgtin:0614141.112345.400",
	"urn:mpeg:mpeg7:schema:2001",
	"urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
}

var sink int

func inputBytes() (n int64) {
	for _, in := range benchInputs {
		n += int64(len(in))
	}
	return n
}

func BenchmarkParse(b *testing.B) {
	b.Run("urikit", func(b *testing.B) {
		b.SetBytes(inputBytes())
		b.ReportAllocs()
		b.ResetTimer() // b.Loop would need Go 1.24; the module asks for 1.22
		for range b.N {
			for _, in := range benchInputs {
				u, err := Parse(in)
				if err != nil {
					b.Fatal(err)
				}
				sink += len(u.NSS())
			}
		}
	})
}

func BenchmarkEqual(b *testing.B) {
	x, y := "URN:EXAMPLE:a123%2cz456", "urn:example:a123%2Cz456"
	b.Run("urikit", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			u, _ := Parse(x)
			v, _ := Parse(y)
			if !u.Equal(v) {
				b.Fatal("not equal")
			}
		}
	})
}

func BenchmarkCanonical(b *testing.B) {
	x := "URN:EXAMPLE:a123%2cz456"
	b.Run("urikit", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			u, _ := Parse(x)
			sink += len(u.CanonicalString())
		}
	})
}

func BenchmarkKey(b *testing.B) {
	u := MustParse("urn:ISBN:0-395-36341-1")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		sink += len(u.Key())
	}
}
