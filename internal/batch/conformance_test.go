package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// conformanceCase is one line of a corpus: a request plus what the answer
// must hold (the format of ../shared/conformance and testdata/conformance).
type conformanceCase struct {
	where   string
	request []byte
	expect  map[string]any
}

// loadCorpus reads a corpus the way run.py does: blank lines and lines
// starting with "//" are skipped; "expect", "source" and "note" are not
// part of the request.
func loadCorpus(t *testing.T, path string) []conformanceCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []conformanceCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		var expect map[string]any
		if err := json.Unmarshal(m["expect"], &expect); err != nil || expect == nil {
			t.Fatalf("%s:%d: no expect object", path, n)
		}
		for _, k := range []string{"expect", "source", "note"} {
			delete(m, k)
		}
		req, _ := json.Marshal(m)
		cases = append(cases, conformanceCase{where: filepath.Base(path) + ":" + itoa(n), request: req, expect: expect})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkCase answers one case and checks each key of its expect object, as
// run.py does: the answer goes through JSON, as over the wire.
func checkCase(c conformanceCase) error {
	resp, err := json.Marshal(Answer(c.request))
	if err != nil {
		return err
	}
	var got map[string]any
	if err := json.Unmarshal(resp, &got); err != nil {
		return err
	}
	for k, want := range c.expect {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, want) {
			return fmt.Errorf("%s\n  key %q: got %s, want %s", c.request, k, js(got[k]), js(want))
		}
	}
	return nil
}

func runCorpus(t *testing.T, cases []conformanceCase) {
	failed := 0
	for _, c := range cases {
		if err := checkCase(c); err != nil {
			failed++
			if failed <= 20 {
				t.Errorf("%s: %v", c.where, err)
			}
		}
	}
	t.Logf("%d passed, %d failed", len(cases)-failed, failed)
}

// TestCheckCaseCanFail: a wrong or missing expected value fails a case.
func TestCheckCaseCanFail(t *testing.T) {
	req := []byte(`{"op":"parse","input":"http://a/"}`)
	for _, expect := range []map[string]any{
		{"ok": true, "host": "b"},
		{"ok": true, "port": ""},
		{"ok": true, "nosuchkey": nil},
		{"ok": false},
	} {
		if err := checkCase(conformanceCase{request: req, expect: expect}); err == nil {
			t.Errorf("expect %v passed", expect)
		}
	}
	if err := checkCase(conformanceCase{request: req, expect: map[string]any{"ok": true, "host": "a", "port": nil}}); err != nil {
		t.Error(err)
	}
}

func js(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// TestConformance runs the project's own vectors (testdata/conformance),
// always; and the public corpora of ../shared/conformance (RFC 3987's
// examples in its iri folder) when that checkout is beside this one
// (skipped, and counted as skipped, when not).
func TestConformance(t *testing.T) {
	own, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*.jsonl"))
	if len(own) == 0 {
		t.Fatal("no vectors in testdata/conformance")
	}
	for _, path := range own {
		t.Run("own/"+filepath.Base(path), func(t *testing.T) {
			cases := loadCorpus(t, path)
			if len(cases) == 0 {
				t.Fatalf("%s holds no case", path)
			}
			runCorpus(t, cases)
		})
	}
	t.Run("shared", func(t *testing.T) {
		dir := filepath.Join("..", "..", "..", "shared", "conformance")
		public, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		iriCorpus, _ := filepath.Glob(filepath.Join(dir, "iri", "*.jsonl"))
		public = append(public, iriCorpus...)
		if len(public) == 0 {
			t.Skipf("no public corpus at %s (clone ../shared beside the repository to run it)", dir)
		}
		for _, path := range public {
			t.Run(filepath.Base(path), func(t *testing.T) { runCorpus(t, loadCorpus(t, path)) })
		}
	})
}

// TestConcurrentAnswers answers requests of every op from many goroutines
// at once; with -race, shared mutable state shows up as a data race.
func TestConcurrentAnswers(t *testing.T) {
	reqs := []string{
		`{"op":"parse","input":"http://a/b?c#d"}`,
		`{"op":"resolve","base":"http://a/b/c/d;p?q","ref":"../g"}`,
		`{"op":"normalize","input":"HTTP://A:80","level":"scheme"}`,
		`{"op":"equal","a":"http://a","b":"HTTP://A:80/","level":"scheme"}`,
		`{"op":"urn","input":"urn:isbn:0-395-36341-1"}`,
		`{"op":"urn-equal","a":"urn:isbn:0-395-36341-1","b":"urn:isbn:9780395363416","level":"namespace"}`,
		`{"op":"scheme","input":"ftp://h/a;type=i"}`,
		`{"op":"inspect","input":"http://u:p@0x7f.1:25/"}`,
		`{"op":"extract","text":"see <http://a/b> and mailto:x@y.z."}`,
		`{"op":"extract","text":"siehe http://säfte.de/ö und <http://例え.テスト/>","iri":true}`,
		`{"op":"iri","input":"https://bücher.example/Köln?q=ü#frag"}`,
		`{"op":"to-iri","input":"http://a/D%C3%BCrst%2F%FC"}`,
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = js(Answer([]byte(r)))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				k := (g + i) % len(reqs)
				if got := js(Answer([]byte(reqs[k]))); got != want[k] {
					t.Errorf("%s: %s, alone %s", reqs[k], got, want[k])
					return
				}
				_ = Ops()
			}
		}(g)
	}
	wg.Wait()
}
