package iri

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/urikit/urikit/uri"
)

type uriError = uri.Error

// TestConformance runs the iri and to-iri vectors straight against the
// package (the batch protocol's answers, computed here without the batch
// package): the project's own ../testdata/conformance/iri.jsonl, and RFC
// 3987's examples in ../../shared/conformance/iri/ when ../shared is there.
func TestConformance(t *testing.T) {
	files := []string{"../testdata/conformance/iri.jsonl"}
	shared, _ := filepath.Glob("../../shared/conformance/iri/*.jsonl")
	files = append(files, shared...)
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n := 0
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			if text == "" || strings.HasPrefix(text, "//") {
				continue
			}
			var c struct {
				Op     string         `json:"op"`
				Input  string         `json:"input"`
				Expect map[string]any `json:"expect"`
			}
			if err := json.Unmarshal([]byte(text), &c); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			var got map[string]any
			switch c.Op {
			case "iri":
				got = answerIRI(c.Input)
			case "to-iri":
				got = answerToIRI(c.Input)
			default:
				continue
			}
			n++
			for k, want := range c.Expect {
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("%s:%d: %s %q: %s = %#v, want %#v", file, line, c.Op, c.Input, k, got[k], want)
				}
			}
		}
		f.Close()
		t.Logf("%s: %d cases", file, n)
	}
}

func opt(s string, ok bool) any {
	if !ok {
		return nil
	}
	return s
}

func answerIRI(in string) map[string]any {
	x, err := ParseReference(in)
	if err != nil {
		var e *Error
		errors.As(err, &e)
		return map[string]any{"ok": false, "error": e.Reason, "offset": float64(e.Offset)}
	}
	var hostType, idna any
	if x.HasAuthority() {
		hostType = x.HostKind().String()
	}
	if u, err := x.URIWithIDNA(); err == nil {
		idna = u.String()
	}
	return map[string]any{
		"ok": true, "scheme": opt(x.Scheme(), x.HasScheme()), "authority": opt(x.Authority(), x.HasAuthority()),
		"userinfo": opt(x.Userinfo(), x.HasUserinfo()), "host": opt(x.Host(), x.HasAuthority()), "host_type": hostType,
		"port": opt(x.Port(), x.HasPort()), "path": x.Path(), "query": opt(x.Query(), x.HasQuery()),
		"fragment": opt(x.Fragment(), x.HasFragment()), "uri": x.URI().String(), "uri_idna": idna,
	}
}

func answerToIRI(in string) map[string]any {
	x, err := FromURIString(in)
	if err != nil {
		var off any
		if ue := uriErrOffset(err); ue >= 0 {
			off = float64(ue)
		}
		return map[string]any{"ok": false, "error": err.Error(), "offset": off}
	}
	return map[string]any{"ok": true, "result": x.String()}
}

// uriErrOffset is the Offset of a *uri.Error, or -1.
func uriErrOffset(err error) int {
	var e *uriError
	if errors.As(err, &e) {
		return e.Offset
	}
	return -1
}
