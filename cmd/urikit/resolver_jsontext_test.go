package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/storetest"
)

// TestImportRefusesWhatTheAPIRefuses: a line of JSON Lines that is not
// UTF-8, that gives a member name twice, or whose metadata nests past
// resolver.MaxMetadataDepth is a bad row, named by its line and the byte
// at fault, as the API refuses such a body.
func TestImportRefusesWhatTheAPIRefuses(t *testing.T) {
	hermetic(t)
	d := newDataDir(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	deep := `{"a":` + strings.Repeat("[", 8185) + strings.Repeat("]", 8185) + `}`
	os.WriteFile(in, []byte(strings.Join([]string{
		`{"urn":"urn:example:ok","locations":[{"url":"https://example.org/ok"}],"metadata":{"title":"T"}}`,
		`{"urn":"urn:example:label","locations":[{"url":"https://example.org/1","label":"ok` + "\xff" + `"}]}`,
		`{"urn":"urn:example:twice","locations":[{"url":"https://example.org/x"}],"locations":[{"url":"https://example.org/y"}]}`,
		`{"urn":"urn:example:meta","locations":[{"url":"https://example.org/2"}],"metadata":{"a":{"b":1,"b":2}}}`,
		`{"urn":"urn:example:deep","locations":[{"url":"https://example.org/3"}],"metadata":` + deep + `}`,
	}, "\n")+"\n"), 0o644)
	out, errs := cli(t, exitInvalid, "import", in, "--data", d)
	for _, want := range []string{
		"line 2: not UTF-8: byte 0xFF (at byte 82)",
		`line 3: not a record: member "locations" is given twice: the names in an object must be unique (RFC 8259 §4, RFC 7493 §2.3) (at byte 73)`,
		`line 4: not a record: member "b" in metadata.a is given twice`,
		"line 5: urn:example:deep: metadata: nested more than 32 levels deep",
	} {
		if !strings.Contains(errs, in+" "+want) {
			t.Errorf("stderr lacks %q:\n%.2000s", want, errs)
		}
	}
	if !strings.Contains(out, "imported 1 record ") || !strings.Contains(out, "4 bad rows skipped") {
		t.Fatalf("report:\n%s\n%.2000s", out, errs)
	}
	for _, name := range []string{"urn:example:label", "urn:example:twice", "urn:example:meta", "urn:example:deep"} {
		cli(t, exitInvalid, "lookup", name, "--data", d)
	}
}

// TestMetadataStoredBeforeTheRules: a directory whose records hold metadata
// that a write refuses today (stored before the rules) verifies, with a
// note; exports; and the import of that export refuses those records, by
// line (the rules tightened the import of older exports).
func TestMetadataStoredBeforeTheRules(t *testing.T) {
	hermetic(t)
	d := newDataDir(t)
	cli(t, exitOK, "register", "urn:example:fine", "https://example.org/fine", "--metadata", `{"title":"T"}`, "--data", d)
	st := openData(t, d)
	as, err := st.Authorities(context.Background())
	if err != nil || len(as) != 1 {
		t.Fatalf("authorities: %v %v", as, err)
	}
	deep := `{"a":` + strings.Repeat("[", 8185) + strings.Repeat("]", 8185) + `}`
	for name, md := range map[string]string{"urn:example:deep": deep, "urn:example:dup": `{"a":1,"a":2}`} {
		storetest.InsertLegacy(t, st, resolver.Record{URN: name, AuthorityID: as[0].ID,
			Locations: []resolver.Location{{URL: "https://example.org/old"}}, Metadata: []byte(md)})
	}
	st.Close()

	out, _ := cli(t, exitOK, "verify", "--data", d)
	if !strings.Contains(out, "state verified: 3 records") ||
		!strings.Contains(out, "note: 2 records hold metadata that a write refuses today, stored before that rule (the first: urn:example:") ||
		!strings.Contains(out, "an import of an export refuses them") {
		t.Fatalf("verify: %s", out)
	}
	if out, _ := cli(t, exitOK, "lookup", "urn:example:dup", "--data", d); !strings.Contains(out, `{"a":1,"a":2}`) {
		t.Fatalf("lookup: %s", out)
	}
	exp := filepath.Join(t.TempDir(), "all.jsonl")
	cli(t, exitOK, "export", "-o", exp, "--data", d)
	b, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	at := func(name string) int {
		for i, l := range lines {
			if strings.Contains(l, `"urn":"`+name+`"`) {
				return i + 1
			}
		}
		t.Fatalf("%s is not exported:\n%.300s", name, b)
		return 0
	}
	if len(lines) != 3 || !strings.Contains(string(b), deep) {
		t.Fatalf("export: %d lines", len(lines))
	}
	d2 := newDataDir(t)
	out, errs := cli(t, exitInvalid, "import", exp, "--data", d2)
	for _, want := range []string{
		"line " + strconv.Itoa(at("urn:example:deep")) + ": urn:example:deep: metadata: nested more than 32 levels deep",
		"line " + strconv.Itoa(at("urn:example:dup")) + `: not a record: member "a" in metadata is given twice`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("import: stderr lacks %q:\n%.2000s", want, errs)
		}
	}
	if !strings.Contains(out, "imported 1 record ") || !strings.Contains(out, "2 bad rows skipped") {
		t.Fatalf("import report:\n%s\n%.2000s", out, errs)
	}
}
