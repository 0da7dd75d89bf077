package batch

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// TestRunOneAnswerPerLine: every input line, however broken, gets exactly
// one response line, in order, and the run goes on to the end.
func TestRunOneAnswerPerLine(t *testing.T) {
	long := `{"op":"parse","input":"http://a/` + strings.Repeat("x", 1<<20) + `"}`
	lines := []struct {
		in      string
		ok      bool
		errPart string
	}{
		{`{"op":"parse","input":"http://a/"}`, true, ""},
		{``, false, "empty request line"},
		{"\xff\xfe", false, "not valid UTF-8"},
		{`not json`, false, "not a JSON object"},
		{`[1,2]`, false, "not a JSON object"},
		{`null`, false, "not a JSON object"},
		{`{"input":"a:b"}`, false, `missing field "op"`},
		{`{"op":"nope"}`, false, "unsupported op"},
		{`{"op":"parse"}`, false, `missing field "input"`},
		{`{"op":"parse","input":5}`, false, `field "input" must be a string`},
		{`{"op":"parse","input":null}`, false, `field "input" must be a string`},
		{`{"op":"parse","input":"a b"}`, false, "invalid space"},
		{`{"op":"normalize","input":"a:b","level":"weird"}`, false, "unknown level"},
		{`{"op":"normalize","input":"a:b","level":"simple"}`, false, "unknown level"},
		{`{"op":"normalize","input":"a:b"}`, false, `missing field "level"`},
		{`{"op":"equal","a":"a:b","b":"a:b"}`, false, `missing field "level"`},
		{`{"op":"equal","a":"a:b","b":"a:b","level":"simple"}`, true, ""},
		{`{"op":"urn-equal","a":"urn:a:b","b":"urn:a:b"}`, false, `missing field "level"`},
		{`{"op":"resolve","base":"a/b","ref":"c"}`, false, "base"},
		{long, true, ""},
		{"{\"op\":\"parse\",\"input\":\"a:b\"}\r", true, ""},
	}
	var in strings.Builder
	for _, l := range lines {
		in.WriteString(l.in + "\n")
	}
	in.WriteString(`{"op":"equal","a":"http://A/","b":"http://a/","level":"syntax"}`) // no final newline
	var out strings.Builder
	if err := Run(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 4<<20)
	var got []map[string]any
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("response is not JSON: %q", sc.Text())
		}
		got = append(got, m)
	}
	if len(got) != len(lines)+1 {
		t.Fatalf("%d responses for %d requests", len(got), len(lines)+1)
	}
	for i, l := range lines {
		if got[i]["ok"] != l.ok {
			t.Errorf("line %d (%.40q): ok=%v, want %v (%v)", i, l.in, got[i]["ok"], l.ok, got[i]["error"])
		}
		if l.errPart != "" {
			if msg, _ := got[i]["error"].(string); !strings.Contains(msg, l.errPart) {
				t.Errorf("line %d (%.40q): error %q does not contain %q", i, l.in, msg, l.errPart)
			}
		}
	}
	if last := got[len(lines)]; last["result"] != true {
		t.Errorf("last line without newline: %v", last)
	}
	if off := got[11]["offset"]; off != float64(1) {
		t.Errorf("syntax error offset = %v, want 1", off)
	}
}

func TestOpsRegistered(t *testing.T) {
	want := []string{"equal", "extract", "inspect", "iri", "normalize", "parse", "resolve", "scheme", "to-iri", "urn", "urn-equal"}
	got := strings.Join(Ops(), ",")
	if got != strings.Join(want, ",") {
		t.Errorf("ops = %s, want %s", got, strings.Join(want, ","))
	}
}
