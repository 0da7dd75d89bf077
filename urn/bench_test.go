package urn

import (
	"testing"

	gourn "github.com/leodido/go-urn"
)

// BenchmarkParse parses each of benchInputs once per op (16 URNs).
//
// benchInputs are realistic URNs of registered namespaces, all valid under
// both this package and go-urn's RFC 8141 mode.
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
		for b.Loop() {
			for _, in := range benchInputs {
				u, err := Parse(in)
				if err != nil {
					b.Fatal(err)
				}
				sink += len(u.NSS())
			}
		}
	})
	b.Run("go-urn", func(b *testing.B) {
		opt := gourn.WithParsingMode(gourn.RFC8141Only)
		bs := make([][]byte, len(benchInputs))
		for i, in := range benchInputs {
			bs[i] = []byte(in)
		}
		b.SetBytes(inputBytes())
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range bs {
				u, ok := gourn.Parse(in, opt)
				if !ok {
					b.Fatal(string(in))
				}
				sink += len(u.SS)
			}
		}
	})
}

func BenchmarkEqual(b *testing.B) {
	x, y := "URN:EXAMPLE:a123%2cz456", "urn:example:a123%2Cz456"
	b.Run("urikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, _ := Parse(x)
			v, _ := Parse(y)
			if !u.Equal(v) {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("go-urn", func(b *testing.B) {
		opt := gourn.WithParsingMode(gourn.RFC8141Only)
		bx, by := []byte(x), []byte(y)
		b.ReportAllocs()
		for b.Loop() {
			u, _ := gourn.Parse(bx, opt)
			v, _ := gourn.Parse(by, opt)
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
		for b.Loop() {
			u, _ := Parse(x)
			sink += len(u.CanonicalString())
		}
	})
	b.Run("go-urn", func(b *testing.B) {
		opt := gourn.WithParsingMode(gourn.RFC8141Only)
		bx := []byte(x)
		b.ReportAllocs()
		for b.Loop() {
			u, _ := gourn.Parse(bx, opt)
			sink += len(u.Normalize().String())
		}
	})
}

func BenchmarkKey(b *testing.B) {
	u := MustParse("urn:ISBN:0-395-36341-1")
	b.ReportAllocs()
	for b.Loop() {
		sink += len(u.Key())
	}
}
