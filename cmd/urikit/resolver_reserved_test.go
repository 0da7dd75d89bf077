package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// TestExportImportKeepsReservedAliases: an alias a record dropped stays
// reserved to it in the directory it is exported from (names are never
// reused); export carries it as "reserved" and import reserves it again,
// so that in the new directory it answers 404 reserved and cannot be
// registered, and the history still verifies.
func TestExportImportKeepsReservedAliases(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	d1 := newDataDir(t)
	first := filepath.Join(dir, "first.jsonl")
	second := filepath.Join(dir, "second.jsonl")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(first, `{"urn":"urn:example:rec","aliases":["urn:example:alias0000020","urn:example:kept"],"locations":[{"url":"https://example.org/rec"}]}`+"\n")
	write(second, `{"urn":"urn:example:rec","aliases":["urn:example:kept"],"locations":[{"url":"https://example.org/rec"}]}`+"\n")
	cli(t, exitOK, "import", first, "--data", d1)
	cli(t, exitOK, "import", second, "--data", d1) // drops alias0000020

	exp, _ := cli(t, exitOK, "export", "--data", d1)
	if !strings.Contains(exp, `"reserved":["urn:example:alias0000020"]`) {
		t.Fatalf("export does not carry the dropped alias:\n%s", exp)
	}
	dump := filepath.Join(dir, "dump.jsonl")
	write(dump, exp)

	d2 := newDataDir(t)
	cli(t, exitOK, "import", dump, "--data", d2)
	if again, _ := cli(t, exitOK, "export", "--data", d2); again != exp {
		t.Fatalf("export of the new directory differs:\n%s\nwant\n%s", again, exp)
	}
	// A rerun writes nothing more.
	before := headOf(t, d2)
	cli(t, exitOK, "import", dump, "--data", d2)
	if after := headOf(t, d2); after != before {
		t.Fatalf("a second import changed the history: head %d, was %d", after, before)
	}
	_, errs := cli(t, exitInvalid, "register", "urn:example:alias0000020", "https://other.example/", "--data", d2)
	if !strings.Contains(errs, "stays reserved") {
		t.Fatalf("register of the reserved alias: %s", errs)
	}
	cli(t, exitOK, "verify", "--data", d2)

	srv := startServer(t, d2)
	code, _, body := get(t, srv.URL+"/urn:example:alias0000020")
	if code != 404 || !strings.Contains(body, "reserved") {
		t.Fatalf("GET the reserved alias: %d %s", code, body)
	}
	code, _, _ = get(t, srv.URL+"/urn:example:kept")
	if code != 303 {
		t.Fatalf("GET the kept alias: %d", code)
	}

	// Through a server's API: the same two PUTs; a rerun, which finds
	// the name reserved, writes nothing more.
	d3 := filepath.Join(dir, "d3")
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", d3)
	tok := tokenIn(t, out)
	srv3 := startServer(t, d3)
	for range 2 {
		cli(t, exitOK, "import", dump, "--server", srv3.URL, "--token", tok)
	}
	if code, _, body := get(t, srv3.URL+"/urn:example:alias0000020"); code != 404 || !strings.Contains(body, "reserved") {
		t.Fatalf("GET the reserved alias imported through the API: %d %s", code, body)
	}
	if err := srv3.Stop(t); err != nil {
		t.Fatal(err)
	}
	if h, h2 := headOf(t, d3), headOf(t, d2); h != h2 {
		t.Fatalf("through the API the history has %d entries, directly %d", h, h2)
	}
	cli(t, exitOK, "verify", "--data", d3)
}

// TestImportRefusesTakenReservedName: a reserved name that another record
// holds in the target refuses the line, with the reason; the record is
// still written as the file says (here withdrawn), with its other reserved
// names.
func TestImportRefusesTakenReservedName(t *testing.T) {
	hermetic(t)
	d := newDataDir(t)
	cli(t, exitOK, "register", "urn:example:other", "https://example.org/other", "--data", d)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	line := `{"urn":"urn:example:rec","locations":[{"url":"https://example.org/rec"}],"status":"withdrawn","reason":"gone","reserved":["urn:example:other","urn:example:free"]}`
	if err := os.WriteFile(in, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := cli(t, exitInvalid, "import", in, "--data", d)
	if !strings.Contains(errs, "line 1: ") || !strings.Contains(errs, "reserved name urn:example:other is the name of a record here") {
		t.Fatalf("import: %s", errs)
	}
	out, _ := cli(t, exitOK, "lookup", "--json", "urn:example:rec", "--data", d)
	if !strings.Contains(out, `"withdrawn"`) {
		t.Fatalf("the record with a refused reserved name: %s", out)
	}
	_, errs = cli(t, exitInvalid, "register", "urn:example:free", "https://other.example/", "--data", d)
	if !strings.Contains(errs, "stays reserved") {
		t.Fatalf("register of the other reserved name: %s", errs)
	}
	cli(t, exitOK, "verify", "--data", d)
}

// TestImportReservesMoreNamesThanAPutLists: a record may have dropped more
// aliases over its life than a put may list at once (MaxAliases): the
// import reserves them all, a chunk at a time, beside the record's own
// aliases, or (when it lists as many as a put may) without them.
func TestImportReservesMoreNamesThanAPutLists(t *testing.T) {
	hermetic(t)
	for _, n := range []int{60, resolver.DefaultMaxAliases} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { testImportReservesMany(t, n) })
	}
}

func testImportReservesMany(t *testing.T, nAliases int) {
	d := newDataDir(t)
	var aliases, reserved []string
	for i := range nAliases {
		aliases = append(aliases, fmt.Sprintf(`"urn:example:a%03d"`, i))
	}
	for i := range 70 {
		reserved = append(reserved, fmt.Sprintf(`"urn:example:r%03d"`, i))
	}
	line := `{"urn":"urn:example:rec","aliases":[` + strings.Join(aliases, ",") + `],"locations":[{"url":"https://example.org/rec"}],"reserved":[` + strings.Join(reserved, ",") + `]}` + "\n"
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	cli(t, exitOK, "import", in, "--data", d)
	if exp, _ := cli(t, exitOK, "export", "--data", d); exp != line {
		t.Fatalf("export:\n%s\nwant\n%s", exp, line)
	}
	cli(t, exitOK, "verify", "--data", d)
}

// headOf returns the Seq of the history's last entry in a data directory.
func headOf(t *testing.T, dir string) int64 {
	t.Helper()
	st := openData(t, dir)
	defer st.Close()
	h, err := st.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h.Seq
}

// TestImportRefusesReservedNameOfAnotherThroughAPI: through a server's
// API, which answers a reserved name 404 without saying whose, a reserved
// name that another record dropped refuses the line, as it does directly:
// the record's own history tells a rerun (its own dropped alias) from
// another record's.
func TestImportRefusesReservedNameOfAnotherThroughAPI(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--data", d)
	tok := tokenIn(t, out)
	write := func(name, line string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	srv := startServer(t, d)
	target := []string{"--server", srv.URL, "--token", tok}
	cli(t, exitOK, append([]string{"import", write("x1.jsonl", `{"urn":"urn:example:x","aliases":["urn:example:n"],"locations":[{"url":"https://example.org/x"}]}`)}, target...)...)
	cli(t, exitOK, append([]string{"import", write("x2.jsonl", `{"urn":"urn:example:x","locations":[{"url":"https://example.org/x"}]}`)}, target...)...)
	_, errs := cli(t, exitInvalid, append([]string{"import", write("y.jsonl", `{"urn":"urn:example:y","locations":[{"url":"https://example.org/y"}],"reserved":["urn:example:n"]}`)}, target...)...)
	if !strings.Contains(errs, "line 1: ") || !strings.Contains(errs, "reserved name urn:example:n is reserved to another record here") {
		t.Fatalf("import of another record's reserved name through the API: %s", errs)
	}
	// x's own dropped alias, imported again: nothing to do, no error.
	cli(t, exitOK, append([]string{"import", write("x3.jsonl", `{"urn":"urn:example:x","locations":[{"url":"https://example.org/x"}],"reserved":["urn:example:n"]}`)}, target...)...)
}
