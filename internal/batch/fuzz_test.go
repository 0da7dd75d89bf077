package batch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAnswer: whatever the line, Answer gives one JSON object with an "ok"
// boolean, never a handler's panic (reported as "internal error"), and
// Run writes exactly one line for it.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		`{"op":"parse","input":"http://a/b?c#d"}`,
		`{"op":"resolve","base":"http://a/b/c/d;p?q","ref":"g?y/../x"}`,
		`{"op":"normalize","input":"file://LOCALHOST/%7e","level":"scheme"}`,
		`{"op":"equal","a":"http://a","b":"HTTP://A:80/","level":"simple"}`,
		`{"op":"urn","input":"urn:isbn:0-395-36341-2"}`,
		`{"op":"urn-equal","a":"urn:issn:1234-5678","b":"urn:issn:12345678","level":"namespace"}`,
		`{"op":"scheme","input":"mailto:a@b?subject=1%3D2"}`,
		`{"op":"inspect","input":"http://u:p@0x7f.1:25/%2e%2e"}`,
		`{"op":"extract","text":"<http://a/\n b> 'news:x@y'"}`,
		`{"op":"extract","text":"«http://säfte.de/ö» http://例え.テスト/x","iri":true}`,
		`{"op":"extract","text":"a","iri":"yes"}`,
		`{"op":"iri","input":"http://xn--.ü/%E2%80%AE?\ue000#x"}`,
		`{"op":"to-iri","input":"http://a/%C3%BC%FC%e2%80%ae"}`,
		`{"op":"parse"}`, `[1]`, `{"op":5}`, "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		resp := Answer([]byte(line))
		ok, isBool := resp["ok"].(bool)
		if !isBool {
			t.Fatalf("%q: no ok field: %v", line, resp)
		}
		if msg, _ := resp["error"].(string); !ok && strings.HasPrefix(msg, "internal error") {
			t.Fatalf("%q: %s", line, msg)
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("%q: response does not encode: %v", line, err)
		}
		if strings.ContainsAny(line, "\n") {
			return // Run would see several lines
		}
		var out bytes.Buffer
		if err := Run(strings.NewReader(line+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(out.Bytes(), []byte("\n")); n != 1 {
			t.Fatalf("%q: %d response lines", line, n)
		}
	})
}
