package urn

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestConformanceCorpus runs the project's URN corpus
// (testdata/conformance/urn.jsonl, the batch protocol's "urn" and
// "urn-equal" requests with their expectations, PROTOCOL.md) against the
// package directly, so a change here that breaks an RFC 8141 or namespace
// case fails `go test ./urn` and not only the end-to-end run.
func TestConformanceCorpus(t *testing.T) {
	f, err := os.Open("../testdata/conformance/urn.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for line := 1; sc.Scan(); line++ {
		var c struct {
			Op, Input, A, B, Level string
			Expect                 map[string]any
			Source                 string
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		var got map[string]any
		switch c.Op {
		case "urn":
			got = corpusURN(c.Input)
		case "urn-equal":
			got = corpusURNEqual(c.A, c.B, c.Level)
		default:
			t.Fatalf("line %d: op %q is not a URN op", line, c.Op)
		}
		for k, want := range c.Expect {
			if g, ok := got[k]; !ok || !reflect.DeepEqual(g, want) {
				t.Errorf("line %d (%s): %s = %#v, want %#v; request %s", line, c.Source, k, got[k], want, sc.Text())
			}
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 60 {
		t.Errorf("only %d cases in the corpus", n)
	}
}

// corpusURN is the batch "urn" response (PROTOCOL.md, section urn) in the
// shape encoding/json gives it back.
func corpusURN(in string) map[string]any {
	u, err := Parse(in)
	if err != nil {
		return map[string]any{"ok": false}
	}
	opt := func(s string, ok bool) any {
		if !ok {
			return nil
		}
		return s
	}
	return map[string]any{
		"ok":          true,
		"nid":         u.NID(),
		"nss":         u.NSS(),
		"r_component": opt(u.RComponent()),
		"q_component": opt(u.QComponent()),
		"f_component": opt(u.FComponent()),
		"canonical":   u.CanonicalString(),
	}
}

// corpusURNEqual is the batch "urn-equal" response.
func corpusURNEqual(a, b, level string) map[string]any {
	if level == "" {
		level = "lexical"
	}
	l, err := ParseLevel(level)
	if err != nil {
		return map[string]any{"ok": false}
	}
	ua, err1 := Parse(a)
	ub, err2 := Parse(b)
	if err1 != nil || err2 != nil {
		return map[string]any{"ok": false}
	}
	return map[string]any{"ok": true, "result": Compare(ua, ub, l).Equal}
}
