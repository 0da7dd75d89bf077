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

// TestProtocolSchemeLevel: PROTOCOL.md's scheme level is default ports and
// the empty path alone, with its own table of ports; file's default host,
// which package uri also applies, is not part of it.
func TestProtocolSchemeLevel(t *testing.T) {
	ports := map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "gopher": 70,
		"telnet": 23, "tn3270": 23, "rlogin": 513, "nntp": 119, "news": 119, "wais": 210, "prospero": 1525}
	if len(protocolSchemes) != len(ports) {
		t.Errorf("protocol table has %d schemes, PROTOCOL.md lists %d", len(protocolSchemes), len(ports))
	}
	for name, port := range ports {
		info, ok := protocolSchemes[name]
		slash := name == "http" || name == "https" || name == "ws" || name == "wss" || name == "ftp"
		if !ok || info.DefaultPort != port || info.EmptyPathIsSlash != slash || info.DefaultHost != "" {
			t.Errorf("%s: %+v, want port %d, empty path %v", name, info, port, slash)
		}
	}
	got := Answer([]byte(`{"op":"normalize","input":"file://localhost/x","level":"scheme"}`))
	if got["result"] != "file://localhost/x" {
		t.Errorf("normalize file://localhost/x: %v", got)
	}
	got = Answer([]byte(`{"op":"equal","a":"file://localhost/x","b":"file:///x","level":"scheme"}`))
	if got["result"] != false {
		t.Errorf("equal file://localhost/x file:///x: %v", got)
	}
}
