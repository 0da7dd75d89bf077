package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/httpapi"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestIfMatchData: register and withdraw --if-match directly on a data
// directory, where the Service evaluates the condition in the write's
// transaction.
func TestIfMatchData(t *testing.T) {
	hermetic(t)
	data := []string{"--data", filepath.Join(t.TempDir(), "data")}
	cli(t, exitOK, append([]string{"authority", "add", "Example", "urn:example:"}, data...)...)
	testIfMatch(t, data)
}

// TestIfMatchServer: the same through a server's API, where the flag is
// sent as If-Match.
func TestIfMatchServer(t *testing.T) {
	hermetic(t)
	st, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := resolver.New(st, resolver.Options{})
	_, tok, err := svc.CreateAuthority(t.Context(), resolver.Principal{Admin: true}, "Example", []string{"urn:example:"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{})) // on 127.0.0.1
	t.Cleanup(srv.Close)
	testIfMatch(t, []string{"--server", srv.URL, "--token", tok})
}

var etagLine = regexp.MustCompile(`(?m)^  etag +("[^"]*")$`)

// testIfMatch runs register and withdraw with --if-match against target
// (the flags that name it): a write happens with the record's current
// entity-tag and is refused, exit status 1, with a stale one.
func testIfMatch(t *testing.T, target []string) {
	with := func(args ...string) []string { return append(args, target...) }
	const name = "urn:example:m"
	lookup := func() (string, string) {
		t.Helper()
		out, _ := cli(t, exitOK, with("lookup", name)...)
		m := etagLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("lookup shows no etag:\n%s", out)
		}
		return out, m[1]
	}

	cli(t, exitOK, with("register", name, "https://example.org/1")...)
	_, e1 := lookup()
	// The tag as lookup shows it, or without its quotes, as a shell
	// leaves it: the write happens.
	out, _ := cli(t, exitOK, with("register", name, "https://example.org/2", "--if-match", e1)...)
	if !strings.Contains(out, "replaced") {
		t.Fatalf("register --if-match with the current tag: %s", out)
	}
	before, e2 := lookup()
	if e2 == e1 || !strings.Contains(before, "https://example.org/2") {
		t.Fatalf("after register --if-match: etag %s (was %s)\n%s", e2, e1, before)
	}
	cli(t, exitOK, with("register", name, "https://example.org/2", "--if-match", strings.Trim(e2, `"`))...)

	// A stale tag: exit 1, a message naming the current tag, and the
	// record as it was.
	_, errs := cli(t, exitInvalid, with("register", name, "https://example.org/lost", "--if-match", e1)...)
	if !strings.Contains(errs, "urikit register: --if-match: the current entity-tag of "+name+" is "+e2) ||
		!strings.Contains(errs, "nothing was changed") {
		t.Fatalf("register with a stale --if-match: %q", errs)
	}
	_, errs = cli(t, exitInvalid, with("withdraw", name, "--reason", "r", "--if-match", strings.Trim(e1, `"`))...)
	if !strings.Contains(errs, "urikit withdraw: --if-match: the current entity-tag of "+name+" is "+e2) {
		t.Fatalf("withdraw with a stale --if-match: %q", errs)
	}
	if after, tag := lookup(); after != before || tag != e2 {
		t.Fatalf("a refused --if-match changed the record:\n%s\n%s", before, after)
	}
	// No record: "*" and any tag are refused.
	_, errs = cli(t, exitInvalid, with("register", "urn:example:none", "https://example.org/n", "--if-match", "*")...)
	if !strings.Contains(errs, "urikit register: --if-match: no record for urn:example:none") {
		t.Fatalf("register --if-match * of a new name: %q", errs)
	}
	cli(t, exitInvalid, with("lookup", "urn:example:none")...)

	// Flags that are not an entity-tag are usage errors, before anything
	// is sent.
	for v, want := range map[string]string{
		"":        "--if-match is empty",
		`W/` + e2: "is a weak entity-tag, which never matches",
		"a b":     `--if-match a b is not an entity-tag: no space, quote or control character inside (at byte 1)`,
		`"a"b"`:   `(at byte 2)`,
	} {
		_, errs := cli(t, exitUsage, with("withdraw", name, "--if-match", v)...)
		if !strings.Contains(errs, want) {
			t.Errorf("--if-match %q: %q, want %q", v, errs, want)
		}
	}

	// The current tag withdraws.
	out, _ = cli(t, exitOK, with("withdraw", name, "--reason", "r", "--if-match", e2)...)
	if !strings.Contains(out, "withdrawn "+name) {
		t.Fatalf("withdraw --if-match: %s", out)
	}
	if after, _ := lookup(); !strings.Contains(after, "status     withdrawn") {
		t.Fatalf("after withdraw --if-match:\n%s", after)
	}
}
