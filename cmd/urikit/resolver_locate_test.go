package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urikit/urikit/resolver"
)

// TestLocate: urikit locate lists every record that lists a URL, past the
// first resolver.MaxByLocation that L2Ns answers with, through a server
// (no token) and on its data directory; urikit duplicates says when it
// lists a location's first names only, and points to locate.
func TestLocate(t *testing.T) {
	hermetic(t)
	n := resolver.MaxByLocation + 4
	var b strings.Builder
	var all, active []string
	for i := range n {
		name := fmt.Sprintf("urn:example:pop-%03d", i)
		status := ""
		if i == 2 {
			status = `,"status":"withdrawn","reason":"twice"`
		} else {
			active = append(active, name)
		}
		all = append(all, name)
		fmt.Fprintf(&b, `{"urn":%q,"locations":[{"url":"https://popular.example/"}]%s}`+"\n", name, status)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	srv := startServer(t, data)
	out, _ := cli(t, exitOK, "authority", "add", "Example", "urn:example:", "--server", srv.URL, "--token", srv.Token)
	// One worker, so that the records are created in the file's order.
	cli(t, exitOK, "import", in, "--server", srv.URL, "--token", tokenIn(t, out), "--workers", "1")

	lines := func(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
	check := func(target ...string) {
		t.Helper()
		with := func(args ...string) []string { return append(args, target...) }
		out, errs := cli(t, exitOK, with("locate", "HTTPS://Popular.Example:443/")...)
		if !slices.Equal(lines(out), active) || errs != fmt.Sprintf("HTTPS://Popular.Example:443/ listed by %d active records\n", len(active)) {
			t.Fatalf("locate %v: %d lines, %q", target, len(lines(out)), errs)
		}
		out, _ = cli(t, exitOK, with("locate", "--withdrawn", "https://popular.example/")...)
		if got := lines(out); len(got) != n || got[2] != all[2]+" (withdrawn)" || got[n-1] != all[n-1]+" (active)" {
			t.Fatalf("locate --withdrawn %v: %d lines, %q…", target, len(got), got[:3])
		}
		out, errs = cli(t, exitOK, with("locate", "--json", "https://popular.example/")...)
		var names []string
		for _, l := range lines(out) {
			var rec struct {
				URN string `json:"urn"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("locate --json %v: %v: %s", target, err, l)
			}
			names = append(names, rec.URN)
		}
		if !slices.Equal(names, active) || errs != "" {
			t.Fatalf("locate --json %v: %d records, %q", target, len(names), errs)
		}
		if out, errs = cli(t, exitOK, with("locate", "https://nobody.example/")...); out != "" || !strings.Contains(errs, "listed by 0 active records") {
			t.Fatalf("locate of a URL nobody lists %v: %q %q", target, out, errs)
		}
		if _, errs = cli(t, exitInvalid, with("locate", "no-scheme")...); !strings.Contains(errs, "urikit locate: ") || !strings.Contains(errs, "absolute") {
			t.Fatalf("locate of a relative reference %v: %q", target, errs)
		}
		cli(t, exitUsage, with("locate")...)
		cli(t, exitUsage, with("locate", "https://a.example/", "https://b.example/")...)

		// duplicates: the first MaxByLocation names, and a line saying
		// that more records list the location.
		out, _ = cli(t, exitOK, with("duplicates")...)
		want := append([]string{"https://popular.example/"}, prefixed("  ", active[:resolver.MaxByLocation])...)
		want = append(want, fmt.Sprintf("  … and more records (the first %d are shown): urikit locate https://popular.example/", resolver.MaxByLocation))
		if !slices.Equal(lines(out), want) {
			t.Fatalf("duplicates %v:\n%s", target, out)
		}
		if out, _ = cli(t, exitOK, with("duplicates", "--withdrawn")...); !strings.HasSuffix(out, "urikit locate --withdrawn https://popular.example/\n") {
			t.Fatalf("duplicates --withdrawn %v: %s", target, out[max(0, len(out)-200):])
		}
		out, _ = cli(t, exitOK, with("duplicates", "--json")...)
		var d struct {
			URNs     []string `json:"urns"`
			MoreURNs bool     `json:"more_urns"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || !d.MoreURNs || !slices.Equal(d.URNs, active[:resolver.MaxByLocation]) {
			t.Fatalf("duplicates --json %v: %v %.300s", target, err, out)
		}
	}
	t.Setenv(envToken, srv.Token) // duplicates needs the admin's; locate none
	check("--server", srv.URL)
	t.Setenv(envToken, "")
	if out, _ := cli(t, exitOK, "locate", "https://popular.example/", "--server", srv.URL); len(lines(out)) != len(active) {
		t.Fatalf("locate with no token: %d lines", len(lines(out)))
	}
	if err := srv.Stop(t); err != nil {
		t.Fatal(err)
	}
	check("--data", data)
}

func prefixed(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}
