package postgres

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/quick"
)

// TestJSONLen: jsonLen is the length encoding/json gives a string, for
// plain keys and for every byte that it escapes.
func TestJSONLen(t *testing.T) {
	check := func(s string) bool {
		b, _ := json.Marshal(s)
		n, err := jsonLen(s)
		return err == nil && n == len(b)
	}
	for _, s := range []string{"", "urn:example:a", "a\"b", `a\b`, "<&>", "\x00\x1f\x7f", "é", "\xff", "\u2028", strings.Repeat("k", 5000)} {
		if !check(s) {
			t.Errorf("jsonLen(%q) is not json.Marshal's length", s)
		}
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

// TestCopyReader: the data a copyReader hands out is the header, the rows
// in order and the trailer, whatever the size of the reads, and nothing
// is encoded after close.
func TestCopyReader(t *testing.T) {
	const rows = 3000
	encode := func(i int, c *copyRows) {
		c.row(2)
		c.int8(int64(i))
		c.text(strings.Repeat("x", i%97))
	}
	var want copyRows
	want.b = append(want.b, copyHeader...)
	for i := range rows {
		encode(i, &want)
	}
	want.b = append(want.b, 0xff, 0xff)
	for _, size := range []int{1, 7, 4096, copyChunk - 5, 1 << 20} {
		r := &copyReader{n: rows, encode: encode}
		var got bytes.Buffer
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil || n == 0 && size > 0 {
				t.Fatalf("read size %d: n=%d err=%v", size, n, err)
			}
		}
		if !bytes.Equal(got.Bytes(), want.b) {
			t.Errorf("read size %d: %d bytes, want %d", size, got.Len(), len(want.b))
		}
	}
	calls := 0
	r := &copyReader{n: rows, encode: func(i int, c *copyRows) { calls++; encode(i, c) }}
	if _, err := r.Read(make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	before := calls
	r.close()
	if n, err := r.Read(make([]byte, 100)); n != 0 || err != io.EOF || calls != before {
		t.Errorf("after close: %d bytes, %v, %d more rows encoded", n, err, calls-before)
	}
}
