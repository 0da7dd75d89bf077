package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/internal/pgtest"
	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// roundTripJSONL is written the way export writes: an export of what it
// imports is the same bytes.
const roundTripJSONL = `{"urn":"urn:example:a/b%2Fc","aliases":["urn:example:alias-a","urn:ex2:a"],"locations":[{"url":"https://example.org/a","type":"text/html","label":"landing, \"quoted\""},{"url":"ftp://mirror.example/a.pdf","type":"application/pdf"}],"metadata":{"title":"A","n":[1,2]},"redirect":307}
{"urn":"urn:example:plain","locations":[{"url":"https://example.org/plain"}]}
{"urn":"urn:example:gone","locations":[{"url":"https://example.org/gone"}],"status":"withdrawn","reason":"replaced","successor":"urn:example:plain"}
{"urn":"urn:ex2:second","locations":[{"url":"http://example.net/x?y=1#z","label":"ünïcode"},{"url":"https://example.net/2"}]}
`

func newDataDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "data")
	cli(t, exitOK, "authority", "add", "Example", "urn:example:", "urn:ex2:", "--data", d)
	return d
}

// TestImportExportRoundTrip: JSON Lines and CSV, exported and imported
// again, into a data directory and through a server.
func TestImportExportRoundTrip(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(roundTripJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	d1 := newDataDir(t)
	out, _ := cli(t, exitOK, "import", in, "--data", d1)
	if !strings.Contains(out, "imported 4 records into the data directory "+d1+": 4 created, 0 replaced or already there, 1 withdrawn; 0 bad rows skipped") {
		t.Fatalf("import: %s", out)
	}
	if _, err := os.Stat(in + stateSuffix); !os.IsNotExist(err) {
		t.Fatalf("the state file is still there: %v", err)
	}
	exp, errs := cli(t, exitOK, "export", "--data", d1)
	if exp != roundTripJSONL {
		t.Fatalf("export differs from what was imported:\n%s\nwant\n%s", exp, roundTripJSONL)
	}
	if !strings.Contains(errs, "4 records as jsonl to standard output") {
		t.Fatalf("export report: %s", errs)
	}
	out, _ = cli(t, exitOK, "lookup", "urn:example:gone", "--data", d1)
	if !strings.Contains(out, "status     withdrawn") || !strings.Contains(out, "successor  urn:example:plain") {
		t.Fatalf("withdrawn record: %s", out)
	}

	// Importing the same file again changes nothing, not even the history.
	st := openData(t, d1)
	before := history(t, st)
	out, _ = cli(t, exitOK, "import", in, "--data", d1)
	// The withdrawn record was withdrawn already: not by this import.
	if !strings.Contains(out, "0 created, 4 replaced or already there, 0 withdrawn") {
		t.Fatalf("import again: %s", out)
	}
	if after := history(t, st); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("importing again wrote history: %v, then %v", before, after)
	}

	// Into another directory through the export file (-o), and back.
	f1 := filepath.Join(dir, "export1.jsonl")
	cli(t, exitOK, "export", "-o", f1, "--data", d1)
	d2 := newDataDir(t)
	cli(t, exitOK, "import", f1, "--data", d2)
	if e2, _ := cli(t, exitOK, "export", "--data", d2); e2 != roundTripJSONL {
		t.Fatalf("second generation differs:\n%s", e2)
	}

	// CSV holds names and locations: withdrawn records and what CSV has
	// no column for are left out, and the export says so.
	c1 := filepath.Join(dir, "export1.csv")
	_, errs = cli(t, exitOK, "export", "-o", c1, "--data", d1)
	csv1, _ := os.ReadFile(c1)
	wantCSV := "urn,url,type,label\n" +
		"urn:example:a/b%2Fc,https://example.org/a,text/html,\"landing, \"\"quoted\"\"\"\n" +
		"urn:example:a/b%2Fc,ftp://mirror.example/a.pdf,application/pdf,\n" +
		"urn:example:plain,https://example.org/plain,,\n" +
		"urn:ex2:second,http://example.net/x?y=1#z,,ünïcode\n" +
		"urn:ex2:second,https://example.net/2,,\n"
	if string(csv1) != wantCSV {
		t.Fatalf("CSV export:\n%s\nwant\n%s", csv1, wantCSV)
	}
	if !strings.Contains(errs, "1 withdrawn record left out") || !strings.Contains(errs, "1 record lost its aliases") {
		t.Fatalf("CSV export report: %s", errs)
	}
	d3 := newDataDir(t)
	out, _ = cli(t, exitOK, "import", c1, "--data", d3)
	if !strings.Contains(out, "imported 3 records") {
		t.Fatalf("CSV import: %s", out)
	}
	c3 := filepath.Join(dir, "export3.csv")
	cli(t, exitOK, "export", "--format", "csv", "-o", c3, "--data", d3)
	if csv3, _ := os.ReadFile(c3); string(csv3) != wantCSV {
		t.Fatalf("CSV round trip:\n%s", csv3)
	}

	// Through a server: import into an empty one, export from it, with the
	// admin token; a maintainer token may import but not export.
	d4 := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, d4)
	out, _ = cli(t, exitOK, "authority", "add", "Example", "urn:example:", "urn:ex2:", "--server", srv.URL, "--token", srv.Token)
	mtok := tokenIn(t, out)
	// One worker, so that the records are created in the file's order.
	out, _ = cli(t, exitOK, "import", in, "--server", srv.URL, "--token", mtok, "--workers", "1")
	if !strings.Contains(out, "imported 4 records into the server "+srv.URL+": 4 created, 0 replaced or already there, 1 withdrawn") {
		t.Fatalf("import through the server: %s", out)
	}
	out, _ = cli(t, exitOK, "import", in, "--server", srv.URL, "--token", mtok, "--workers", "1")
	if !strings.Contains(out, "imported 4 records into the server "+srv.URL+": 0 created, 4 replaced or already there, 0 withdrawn") {
		t.Fatalf("import through the server again: %s", out)
	}
	_, errs = cli(t, exitInvalid, "export", "--server", srv.URL, "--token", mtok)
	if !strings.Contains(errs, "only the admin token may list the records") {
		t.Fatalf("export with a maintainer token: %s", errs)
	}
	t.Setenv(envServer, srv.URL)
	t.Setenv(envToken, srv.Token)
	if e4, _ := cli(t, exitOK, "export"); e4 != roundTripJSONL {
		t.Fatalf("export through the server:\n%s", e4)
	}
	out, _ = cli(t, exitOK, "import", c1, "--token", mtok)
	if !strings.Contains(out, "0 created, 3 replaced or already there") {
		t.Fatalf("CSV import through the server: %s", out)
	}
	// The CSV replaced the records whole: aliases and metadata are gone.
	out, _ = cli(t, exitOK, "lookup", "urn:example:a/b%2Fc")
	if strings.Contains(out, "alias") || strings.Contains(out, "metadata") {
		t.Fatalf("after the CSV import: %s", out)
	}
	if code := srv.Stop(t); code != nil {
		t.Fatalf("serve exit: %v\n%s", code, srv.Log)
	}
}

// TestImportBadRows: each bad row is reported with its line and skipped
// whole; the good ones go in; the exit status is 1.
func TestImportBadRows(t *testing.T) {
	hermetic(t)
	d := newDataDir(t)
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(jsonl, []byte(strings.Join([]string{
		`{"urn":"urn:example:ok1","locations":[{"url":"https://example.org/1"}]}`,
		`{not json`,
		`{"urn":"urn:example:badurl","locations":[{"url":"https://example.org/1"},{"url":"not a url"}]}`,
		``,
		`{"urn":"urn:other:unowned","locations":[{"url":"https://example.org/3"}]}`,
		`{"urn":"urn:example:badsucc","locations":[{"url":"https://example.org/4"}],"status":"withdrawn","successor":"::"}`,
		`{"urn":"urn:example:unknownfield","locations":[{"url":"https://example.org/5"}],"colour":"red"}`,
		`{"urn":"urn:example:ok2","aliases":["urn:example:ok1"],"locations":[{"url":"https://example.org/6"}]}`,
		`{"urn":"urn:x","locations":[{"url":"https://example.org/7"}]}`,
		`{"urn":"urn:example:ok3","locations":[{"url":"https://example.org/8"}]}`,
		`{"urn":"urn:example:js","locations":[{"url":"https://example.org/9"},{"url":"JavaScript:alert(document.cookie)"}]}`,
		`{"urn":"urn:example:data","locations":[{"url":"data:text/html,%3Cscript%3Ealert(1)%3C/script%3E"}]}`,
	}, "\n")+"\n"), 0o644)
	out, errs := cli(t, exitInvalid, "import", jsonl, "--data", d)
	for _, want := range []string{
		"line 2: not JSON: the bare word not (at byte 1)", "line 3: urn:example:badurl: locations[1].url: not an absolute URI",
		"line 5: urn:other:unowned: no naming authority owns urn:other:unowned",
		"line 6: successor: not an absolute URI: missing scheme (a scheme starts with a letter) (at byte 0) (skipped)", `line 7: not a record: unknown member "colour"`,
		"line 8: urn:example:ok2: alias urn:example:ok1 is already reserved to urn:example:ok1",
		"line 9: urn:x: urn: not a URN",
		"line 11: urn:example:js: locations[1].url: the javascript: scheme is refused",
		"line 12: urn:example:data: locations[0].url: the data: scheme is refused",
	} {
		if !strings.Contains(errs, jsonl+" "+want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Count(errs, "(skipped)") != 9 || !strings.Contains(out, "imported 2 records") || !strings.Contains(out, "9 bad rows skipped") {
		t.Fatalf("report:\n%s\n%s", out, errs)
	}
	for _, name := range []string{"urn:example:badurl", "urn:example:badsucc", "urn:example:unknownfield", "urn:example:ok2", "urn:example:js", "urn:example:data"} {
		cli(t, exitInvalid, "lookup", name, "--data", d) // nothing of a bad row was written
	}
	cli(t, exitOK, "lookup", "urn:example:ok1", "urn:example:ok3", "--data", d)

	// CSV: a record whose second row is bad is skipped whole.
	csvf := filepath.Join(dir, "bad.csv")
	os.WriteFile(csvf, []byte("urn,url,type\n"+
		"urn:example:c1,https://example.org/c1,text/html\n"+
		"urn:example:c2,https://example.org/c2a,\n"+
		"urn:example:c2,,\n"+
		"urn:example:c3,https://example.org/c3,not a type\n"+
		"urn:example:c4,https://example.org/c4\n"+
		"urn:example:c5,https://example.org/c5,\n"+
		"urn:example:c6,https://example.org/c6,\n"+
		"urn:example:c6,VBScript:MsgBox(1),\n"), 0o644)
	out, errs = cli(t, exitInvalid, "import", csvf, "--data", d)
	for _, want := range []string{"line 4: record urn:example:c2 (lines 3-4) skipped: empty url",
		`line 5: urn:example:c3: locations[0].type: "not a type" is not a media type`, "line 6: record urn:example:c4 (lines 6-6) skipped: 2 fields, the header has 3",
		"line 8: urn:example:c6: locations[1].url: the vbscript: scheme is refused"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "imported 2 records") {
		t.Fatalf("CSV report: %s\n%s", out, errs)
	}
	cli(t, exitInvalid, "lookup", "urn:example:c2", "--data", d)
	cli(t, exitInvalid, "lookup", "urn:example:c6", "--data", d)
	cli(t, exitOK, "lookup", "urn:example:c1", "urn:example:c5", "--data", d)

	// A header that is not urn,url[,type,label] is reported once, and
	// nothing is read after it (a header of ";"-separated fields made
	// every row after it "1 fields, the header has 0").
	os.WriteFile(csvf, []byte("name,link\nurn:example:z,https://example.org/z\n"), 0o644)
	_, errs = cli(t, exitInvalid, "import", csvf, "--data", d)
	if !strings.Contains(errs, "line 1: the header must be urn,url[,type,label]") {
		t.Fatalf("bad header: %s", errs)
	}
	os.WriteFile(csvf, []byte("urn;url\nurn:example:z;https://example.org/z\nurn:example:y;https://example.org/y\n"), 0o644)
	_, errs = cli(t, exitInvalid, "import", csvf, "--data", d)
	if strings.Count(errs, "header") != 1 || !strings.Contains(errs, `line 1: the header must be urn,url[,type,label], not urn;url: the fields are separated by ";"`) ||
		strings.Contains(errs, "line 2") || strings.Contains(errs, "line 3") {
		t.Fatalf("header with semicolons: %s", errs)
	}
	cli(t, exitInvalid, "lookup", "urn:example:z", "--data", d)
	// A file that is not there.
	_, errs = cli(t, exitInvalid, "import", filepath.Join(dir, "none.jsonl"), "--data", d)
	if !strings.Contains(errs, "no such file") {
		t.Fatalf("missing file: %s", errs)
	}
	// Standard input: no state file, no resume.
	code, out, errs := runCLI(`{"urn":"urn:example:stdin","locations":[{"url":"https://example.org/in"}]}`+"\n", "import", "-", "--data", d)
	if code != exitOK || !strings.Contains(out, "imported 1 record into") {
		t.Fatalf("stdin: %d %s %s", code, out, errs)
	}
}

var stateLineRE = regexp.MustCompile(`"line": (\d+)`)

// TestImportInterrupted kills an import with SIGKILL half-way, runs it
// again, and checks that every record is there once, with one history
// entry for each change and none twice.
func TestImportInterrupted(t *testing.T) {
	hermetic(t)
	for _, target := range []string{"data", "server", "postgres"} {
		t.Run(target, func(t *testing.T) {
			testImportInterrupted(t, target)
		})
	}
}

func testImportInterrupted(t *testing.T, target string) {
	remote := target == "server"
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	n := 10000
	if remote {
		n = 2000
	}
	withdrawn := genRecords(t, in, n)
	data := filepath.Join(dir, "data")
	where := []string{"--data", data}
	var srv *server
	var dsn string
	switch target {
	case "postgres":
		dsn = pgtest.Start(t, pgtest.Options{}).NewDB(t)
		where = []string{"--db", dsn}
		cli(t, exitOK, append([]string{"authority", "add", "Example", "urn:example:"}, where...)...)
	case "server":
		srv = startServer(t, data)
		out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
		where = []string{"--server", srv.URL, "--token", tokenIn(t, out)}
	default:
		cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", data)
	}

	// The child: small batches (or few workers), so that it is still
	// running when it is killed.
	args := append([]string{"import", in, "--quiet"}, where...)
	if remote {
		args = append(args, "--workers", "2")
	} else {
		args = append(args, "--batch", "50")
	}
	cmd := child(args...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	killedAt := 0
	deadline := time.Now().Add(2 * time.Minute)
	for killedAt == 0 {
		select {
		case err := <-done:
			t.Fatalf("the import ended before it could be killed (%v): %s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the import made no progress in 2 minutes: %s", out.String())
		}
		b, _ := os.ReadFile(in + stateSuffix)
		if m := stateLineRE.FindSubmatch(b); m != nil {
			if l, _ := strconv.Atoi(string(m[1])); l >= n/5 {
				cmd.Process.Kill() // SIGKILL: no chance to tidy up
				killedAt = l
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	<-done
	b, err := os.ReadFile(in + stateSuffix)
	if err != nil {
		t.Fatalf("no state file after the kill: %v", err)
	}
	var st importState
	if err := json.Unmarshal(b, &st); err != nil || st.Line < killedAt || st.Line >= n {
		t.Fatalf("state after the kill (at line %d): %s (%v)", killedAt, b, err)
	}
	t.Logf("killed at line %d of %d", st.Line, n)

	// Run again: it goes on from the state file, and ends complete.
	cliOut, errs := cli(t, exitOK, append([]string{"import", in, "--quiet"}, where...)...)
	if !strings.Contains(errs, fmt.Sprintf("resuming after line %d", st.Line)) || !strings.Contains(cliOut, fmt.Sprintf("imported %s records", count(int64(n)))) {
		t.Fatalf("resumed import:\n%s\n%s", cliOut, errs)
	}
	if _, err := os.Stat(in + stateSuffix); !os.IsNotExist(err) {
		t.Fatal("the state file is still there after a complete import")
	}
	// And once more from the start: nothing changes.
	cliOut, _ = cli(t, exitOK, append([]string{"import", in, "--quiet"}, where...)...)
	if !strings.Contains(cliOut, "0 created") {
		t.Fatalf("import of a complete file: %s", cliOut)
	}

	if srv != nil {
		if err := srv.Stop(t); err != nil {
			t.Fatalf("serve: %v\n%s", err, srv.Log)
		}
	}
	var store resolver.Store
	if dsn != "" {
		store = openDB(t, dsn)
	} else {
		store = openData(t, data)
	}
	active, wd := countRecords(t, store)
	if active != n-withdrawn || wd != withdrawn {
		t.Fatalf("%d active and %d withdrawn records, want %d and %d", active, wd, n-withdrawn, withdrawn)
	}
	h := history(t, store)
	if h[resolver.ActionNameCreate] != n || h[resolver.ActionNameWithdraw] != withdrawn || h[resolver.ActionNameUpdate] != 0 {
		t.Fatalf("history %v: want %d creations, %d withdrawals, no updates", h, n, withdrawn)
	}
	verify := []string{"verify", "--data", data}
	if dsn != "" {
		verify = []string{"verify", "--db", dsn}
	}
	if o, _ := cli(t, exitOK, verify...); !strings.HasPrefix(o, "history verified") {
		t.Fatal(o)
	}
}

// TestImportKeepsFileOrder: batches are checked ahead of their turn
// (prepared while the one before is written) but committed in the order
// of the file, so a record the file names several times ends as its last
// line says, and its history has the changes in the file's order.
func TestImportKeepsFileOrder(t *testing.T) {
	hermetic(t)
	for _, target := range []string{"data", "postgres"} {
		t.Run(target, func(t *testing.T) {
			var where []string
			var store resolver.Store
			if target == "postgres" {
				dsn := pgtest.Start(t, pgtest.Options{}).NewDB(t)
				where = []string{"--db", dsn}
				cli(t, exitOK, append([]string{"authority", "add", "Example", "urn:example:"}, where...)...)
				store = openDB(t, dsn)
			} else {
				where = []string{"--data", newDataDir(t)}
			}
			in := filepath.Join(t.TempDir(), "in.jsonl")
			var b strings.Builder
			const versions, between = 20, 7
			for v := range versions {
				fmt.Fprintf(&b, `{"urn":"urn:example:dup","locations":[{"url":"https://example.org/v%d"}]}`+"\n", v)
				for i := range between {
					fmt.Fprintf(&b, `{"urn":"urn:example:other-%d-%d","locations":[{"url":"https://example.org/o"}]}`+"\n", v, i)
				}
			}
			if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ := cli(t, exitOK, append([]string{"import", in, "--quiet", "--batch", "3"}, where...)...)
			if !strings.Contains(out, fmt.Sprintf("%d created", 1+versions*between)) {
				t.Fatalf("import: %s", out)
			}
			if store == nil {
				store = openData(t, where[1])
			}
			rec, _, err := store.RecordByKey(context.Background(), urn.MustParse("urn:example:dup").Key())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rec.Locations[0].URL, fmt.Sprintf("https://example.org/v%d", versions-1); got != want {
				t.Fatalf("the record ends with %s, want the file's last %s", got, want)
			}
			hist, err := store.History(context.Background(), rec.ID, 0, versions+1)
			if err != nil || len(hist) != versions {
				t.Fatalf("history: %d entries, %v", len(hist), err)
			}
			for v, e := range hist {
				if !strings.Contains(string(e.Data), fmt.Sprintf(`"https://example.org/v%d"`, v)) {
					t.Fatalf("history entry %d: %s, want version %d", v, e.Data, v)
				}
			}
		})
	}
}

// TestImportStateMismatch: a state file left by an import of another
// file or into another place is not used silently.
func TestImportStateMismatch(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	genRecords(t, in, 50)
	d := newDataDir(t)
	fi, _ := os.Stat(in)
	abs, _ := filepath.Abs(in)
	st := importState{Version: 1, Input: abs, Size: fi.Size(), ModTime: fi.ModTime().UTC(), Target: "data:/elsewhere", Format: "jsonl", Line: 20, Records: 20}
	b, _ := json.Marshal(st)
	os.WriteFile(in+stateSuffix, b, 0o600)
	_, errs := cli(t, exitInvalid, "import", in, "--data", d)
	if !strings.Contains(errs, "is left from an import into data:/elsewhere; remove it or pass --restart") {
		t.Fatalf("mismatch: %s", errs)
	}
	out, _ := cli(t, exitOK, "import", in, "--data", d, "--restart")
	if !strings.Contains(out, "imported 50 records") {
		t.Fatalf("--restart: %s", out)
	}
	// A state file that was cut short is ignored (starting over is safe).
	os.WriteFile(in+stateSuffix, []byte(`{"vers`), 0o600)
	out, errs = cli(t, exitOK, "import", in, "--data", d)
	if !strings.Contains(errs, "cannot be read") || !strings.Contains(out, "0 created, 50 replaced or already there") {
		t.Fatalf("broken state: %s %s", out, errs)
	}
}

// TestImportWithdrawnAsItsOwnSuccessor: a withdrawn record whose
// successor is itself (its name or an alias, as lookups match names),
// which the Service refuses, is a bad row found before anything of it is
// written: the record is not put and then left active.
func TestImportWithdrawnAsItsOwnSuccessor(t *testing.T) {
	hermetic(t)
	d := newDataDir(t)
	in := filepath.Join(t.TempDir(), "self.jsonl")
	os.WriteFile(in, []byte(strings.Join([]string{
		`{"urn":"urn:example:self","aliases":["urn:example:self-alias"],"locations":[{"url":"https://example.org/s"}],"status":"withdrawn","successor":"URN:EXAMPLE:self-alias"}`,
		`{"urn":"urn:example:self2","locations":[{"url":"https://example.org/s2"}],"status":"withdrawn","successor":"urn:example:self2#v2"}`,
		`{"urn":"urn:example:moved","locations":[{"url":"https://example.org/m"}],"status":"withdrawn","successor":"urn:example:next"}`,
	}, "\n")+"\n"), 0o644)
	out, errs := cli(t, exitInvalid, "import", in, "--data", d)
	for _, want := range []string{
		in + " line 1: successor: URN:EXAMPLE:self-alias names urn:example:self itself",
		in + " line 2: successor: urn:example:self2#v2 names urn:example:self2 itself",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "imported 1 record into") || !strings.Contains(out, "1 withdrawn; 2 bad rows skipped") {
		t.Fatalf("report: %s\n%s", out, errs)
	}
	cli(t, exitInvalid, "lookup", "urn:example:self", "--data", d)
	cli(t, exitInvalid, "lookup", "urn:example:self2", "--data", d)
	cli(t, exitOK, "lookup", "urn:example:moved", "--data", d)
	// One record is "1 record", in export's summary as in import's.
	_, errs = cli(t, exitOK, "export", "--format", "csv", "--data", d)
	if errs != "urikit export: 0 records as csv to standard output\n"+
		"urikit export: 1 withdrawn record left out: CSV cannot say a name is withdrawn (use --format jsonl)\n" {
		t.Errorf("export of 1 withdrawn record as CSV: %q", errs)
	}
	if _, errs = cli(t, exitOK, "export", "--data", d); errs != "urikit export: 1 record as jsonl to standard output\n" {
		t.Errorf("export of 1 record: %q", errs)
	}
}

// TestImportStopsAtUnreadableLine: a CSV quote left open stops the import
// at its line, after every record before that line is written and every
// bad row before it reported (the last batch, not yet full, went
// nowhere); the state file lets the same command, once the line is
// corrected, go on from there; a change before that line is refused.
func TestImportStopsAtUnreadableLine(t *testing.T) {
	hermetic(t)
	for _, target := range []string{"data", "server"} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.csv")
			rows := []string{
				"urn,url,type,label",
				"urn:example:q1,https://e.org/q1,text/html,One",
				"urn:example:q2,https://e.org/q2,,",
				"urn:example:q2,https://e.org/q2b,,",
				"urn:example:q3,https://e.org/q3", // too few fields, just before the broken line
				`urn:example:q4,"https://e.org/q4,,`,
				"urn:example:q5,https://e.org/q5,,",
			}
			write := func() {
				t.Helper()
				if err := os.WriteFile(in, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write()
			where := []string{"--data", newDataDir(t)}
			lookup := where
			if target == "server" {
				srv := startServer(t, filepath.Join(dir, "data"))
				out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
				where = []string{"--server", srv.URL, "--token", tokenIn(t, out)}
				lookup = []string{"--server", srv.URL}
			}
			imp := append([]string{"import", in}, where...)
			_, errs := cli(t, exitInvalid, imp...)
			for _, want := range []string{
				in + " line 5: record urn:example:q3 (lines 5-5) skipped: 2 fields, the header has 4",
				in + " line 6 cannot be read: a quoted field opened here is not closed properly before line 7",
				"stopped at line 6: 2 records are in (2 created, 0 withdrawn), 1 bad row skipped",
				"correct line 6, then run the same command again: it goes on from line 6 (" + in + stateSuffix + " keeps the place; lines 1 to 5 must stay as they are)",
			} {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
			cli(t, exitOK, append([]string{"lookup", "urn:example:q1", "urn:example:q2"}, lookup...)...)
			out, _ := cli(t, exitOK, append([]string{"lookup", "urn:example:q2"}, lookup...)...)
			if !strings.Contains(out, "https://e.org/q2b") {
				t.Errorf("q2 lacks its second row:\n%s", out)
			}
			for _, name := range []string{"urn:example:q3", "urn:example:q4", "urn:example:q5"} {
				cli(t, exitInvalid, append([]string{"lookup", name}, lookup...)...)
			}
			st, err := os.ReadFile(in + stateSuffix)
			if m := stateLineRE.FindSubmatch(st); err != nil || m == nil || string(m[1]) != "5" {
				t.Fatalf("state file: %s %v", st, err)
			}

			// Run again as it is: it goes on from line 6 and stops there again.
			_, errs = cli(t, exitInvalid, imp...)
			if !strings.Contains(errs, "resuming after line 5 (2 records done before") || strings.Count(errs, "(skipped)") != 0 ||
				!strings.Contains(errs, "stopped at line 6: 2 records are in") {
				t.Fatalf("rerun before the correction:\n%s", errs)
			}

			// A change before line 6 is not taken for a correction.
			if target == "data" {
				saved := rows[1]
				rows[1] = "urn:example:q1,https://e.org/q1-changed,text/html,One"
				write()
				_, errs = cli(t, exitInvalid, imp...)
				if !strings.Contains(errs, "is left from another version of the file") {
					t.Fatalf("after a change before the stop:\n%s", errs)
				}
				rows[1] = saved
			}

			// Corrected: it goes on from line 6 and reads to the end.
			rows[5] = "urn:example:q4,https://e.org/q4,,"
			write()
			out, errs = cli(t, exitInvalid, imp...) // the bad row of the first run counts still
			if !strings.Contains(errs, "has changed since the import stopped, but not in lines 1 to 5") ||
				!strings.Contains(errs, "resuming after line 5") || strings.Contains(errs, "line 5: record") ||
				!strings.Contains(out, "imported 4 records") || !strings.Contains(out, "4 created") || !strings.Contains(out, "1 bad row skipped") {
				t.Fatalf("rerun after the correction:\n%s\n%s", out, errs)
			}
			cli(t, exitOK, append([]string{"lookup", "urn:example:q4", "urn:example:q5"}, lookup...)...)
			if _, err := os.Stat(in + stateSuffix); !os.IsNotExist(err) {
				t.Fatalf("the state file is still there: %v", err)
			}
		})
	}

	// The broken row is of the record before it, which may go on there:
	// that record is not written, the stop says so, and a rerun starts
	// with it.
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("urn,url\nurn:example:z0,https://e.org/z0\nurn:example:z1,https://e.org/z1\n"+
		"urn:example:z1,\"https://e.org/z1b\nurn:example:z2,https://e.org/z2\n"), 0o644)
	d := newDataDir(t)
	_, errs := cli(t, exitInvalid, "import", in, "--data", d)
	for _, want := range []string{
		in + " line 4 cannot be read: a quoted field opened here is not closed properly",
		"(RFC 4180 §2: a quote in a field is doubled); the record urn:example:z1 (from line 3) is not imported either\n",
		"stopped at line 4: 1 record is in", "it goes on from line 3",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	cli(t, exitOK, "lookup", "urn:example:z0", "--data", d)
	cli(t, exitInvalid, "lookup", "urn:example:z1", "--data", d)
}

// BenchmarkImport is urikit import of generated records (20,000, or
// URIKIT_IMPORT_BENCH) into a fresh data directory, the whole command:
// reading, checking, writing. bench/import-sqlite.sh does the same with
// the built binary and a million records.
//
//	go test -run '^$' -bench Import -benchtime 3x ./cmd/urikit/
func BenchmarkImport(b *testing.B) {
	n := 20000
	if v, _ := strconv.Atoi(os.Getenv("URIKIT_IMPORT_BENCH")); v > 0 {
		n = v
	}
	hermetic(b)
	in := filepath.Join(b.TempDir(), "in.jsonl")
	genRecords(b, in, n)
	for b.Loop() {
		b.StopTimer()
		d := newDataDir(b)
		b.StartTimer()
		cli(b, exitOK, "import", in, "--data", d, "--quiet")
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestImportNotAServer: an import against something that is not a urikit
// server stops at the first answer (the token check), on one line, instead
// of reporting every record.
func TestImportNotAServer(t *testing.T) {
	hermetic(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, "<html>\n<body>405 Not Allowed</body>\n</html>\n")
	}))
	defer other.Close()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 100)
	_, errs := cli(t, exitInvalid, "import", in, "--server", other.URL, "--token", "t")
	if strings.Contains(errs, "(skipped)") || strings.Contains(errs, "<html>") ||
		!strings.Contains(errs, "urikit import: GET "+other.URL+"/api/v1/token answered 405 Method Not Allowed (text/html), not a urikit resolver's problem details") {
		t.Fatalf("stderr:\n%s", errs)
	}
	if _, err := os.Stat(in + stateSuffix); !os.IsNotExist(err) {
		t.Fatal("a state file was left with nothing to resume")
	}

	// A proxy that fails in the middle of an import: the import stops
	// (after retrying), it does not refuse the records one by one.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" && r.URL.Path == "/api/v1/token" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"admin":false,"authority":1,"id":1}`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>\n<body>502 Bad Gateway</body>\n</html>\n")
	}))
	defer proxy.Close()
	_, errs = cli(t, exitInvalid, "import", in, "--server", proxy.URL, "--token", "t", "--workers", "1")
	if strings.Contains(errs, "(skipped)") || !strings.Contains(errs, "urikit import: stopped: PUT "+proxy.URL+"/api/v1/names/urn:example:rec-0000000 answered 502 Bad Gateway (text/html)") {
		t.Fatalf("stderr:\n%s", errs)
	}
}

// TestProgress: a bar redrawn in place on a terminal, plain lines
// otherwise; a report clears the bar first.
func TestProgress(t *testing.T) {
	var b strings.Builder
	imp := &importer{s: &stdio{err: &b}, path: "in.jsonl", size: 1000}
	imp.read.Store(250)
	imp.done.Store(12345)
	imp.bad.Store(2)
	start := time.Now().Add(-time.Second)
	imp.drawProgress(start)
	if got := b.String(); !strings.HasPrefix(got, "urikit import:  25%  12,345 records, 2 bad, ") || !strings.HasSuffix(got, "/s\n") {
		t.Fatalf("plain: %q", got)
	}
	b.Reset()
	imp.tty = true
	imp.drawProgress(start)
	got := b.String()
	if !strings.HasPrefix(got, "\r\x1b[K[███████"+strings.Repeat("·", 23)+"]  25%  12,345 records") || strings.Contains(got, "\n") {
		t.Fatalf("bar: %q", got)
	}
	b.Reset()
	imp.report(7, fmt.Errorf("bad"))
	if b.String() != "\r\x1b[Kurikit import: in.jsonl line 7: bad (skipped)\n" {
		t.Fatalf("report over the bar: %q", b.String())
	}
}

// TestImportWrongToken: an import through a server with the admin token,
// or with no valid token, stops before the first record.
func TestImportWrongToken(t *testing.T) {
	hermetic(t)
	srv := startServer(t, filepath.Join(t.TempDir(), "data"))
	cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 20)
	for tok, want := range map[string]string{
		srv.Token:       "this is the admin token, which writes no names",
		"urikit_nobody": "unknown token",
		"":              "this needs a token",
	} {
		_, errs := cli(t, exitInvalid, "import", in, "--server", srv.URL, "--token", tok)
		if !strings.Contains(errs, want) || strings.Contains(errs, "line ") {
			t.Errorf("token %q: %s", tok, errs)
		}
	}
}

// TestImportPreflightRefusesNothing: an import with a maintainer's token,
// as it should be, makes the server refuse nothing: its check of the
// token shows in the metrics and the log as no 403.
func TestImportPreflightRefusesNothing(t *testing.T) {
	hermetic(t)
	srv := startServer(t, filepath.Join(t.TempDir(), "data"))
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	genRecords(t, in, 5)
	cli(t, exitOK, "import", in, "--server", srv.URL, "--token", tokenIn(t, out))
	_, _, metrics := get(t, srv.URL+"/metrics")
	if strings.Contains(metrics, `code="403"`) || !strings.Contains(metrics, `route="/api/v1/names/{urn}"`) {
		t.Errorf("the import was refused something, or wrote nothing:\n%s", grepLines(metrics, "urikit_http_requests_total"))
	}
	if strings.Contains(srv.Log.String(), `"status":403`) {
		t.Errorf("a 403 in the log:\n%s", srv.Log)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// A record whose last row's label runs over several lines (a quoted line
// break, RFC 4180 §2) ends on the label's last line: a stop after it
// resumes after that line, and a change to any of its lines is a change
// before the stop, never a correction that would be skipped.
func TestImportResumeAfterMultiLineLabel(t *testing.T) {
	hermetic(t)
	in := filepath.Join(t.TempDir(), "in.csv")
	rows := []string{
		"urn,url,type,label",
		`urn:example:x,https://a.example/,,"multi`,
		`line label"`,
		`urn:example:y,https://b.example/,,"broken`,
		"urn:example:z,https://c.example/,,ok",
	}
	write := func() {
		t.Helper()
		if err := os.WriteFile(in, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write()
	d := newDataDir(t)
	imp := []string{"import", in, "--data", d}
	_, errs := cli(t, exitInvalid, imp...)
	if !strings.Contains(errs, "goes on from line 4 (") || !strings.Contains(errs, "lines 1 to 3 must stay as they are") {
		t.Fatalf("the stop:\n%s", errs)
	}
	st, err := os.ReadFile(in + stateSuffix)
	if m := stateLineRE.FindSubmatch(st); err != nil || m == nil || string(m[1]) != "3" {
		t.Fatalf("state file: %s %v", st, err)
	}
	// Line 3, x's label, changed with the correction: not taken for one.
	rows[2] = `CHANGED label"`
	rows[3] = "urn:example:y,https://b.example/,,fixed"
	write()
	if _, errs := cli(t, exitInvalid, imp...); !strings.Contains(errs, "is left from another version of the file") {
		t.Fatalf("a change to the record before the stop:\n%s", errs)
	}
	// The correction alone resumes after x.
	rows[2] = `line label"`
	write()
	out, errs := cli(t, exitOK, imp...)
	if !strings.Contains(errs, "resuming after line 3") || !strings.Contains(out, "imported 3 records") || !strings.Contains(out, "3 created") {
		t.Fatalf("rerun after the correction:\n%s\n%s", out, errs)
	}
	out, _ = cli(t, exitOK, "lookup", "urn:example:x", "--data", d)
	if !strings.Contains(out, "multi\\nline label") && !strings.Contains(out, "multi\nline label") {
		t.Fatalf("x: %s", out)
	}
}
