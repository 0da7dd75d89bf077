package main

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestNamespaceErrorWording: a name that breaks its namespace's rules is
// reported once as what it is, not as "urn: urn:isbn: …", on a data
// directory and through a server; an alias likewise.
func TestNamespaceErrorWording(t *testing.T) {
	hermetic(t)
	data := filepath.Join(t.TempDir(), "data")
	cli(t, exitOK, "authority", "add", "Books", "urn:isbn:", "--data", data)
	const want = `urikit register: urn: the NSS "123" breaks the rules of namespace isbn (RFC 3187): an ISBN has 10 or 13 digits` + "\n"
	if _, errs := cli(t, exitInvalid, "register", "urn:isbn:123", "https://example.org/", "--data", data); errs != want {
		t.Errorf("on the data directory: %q, want %q", errs, want)
	}
	srv := startServer(t, data, "URIKIT_ADMIN_TOKEN=wording-admin-token-0123456789")
	out, _ := cli(t, exitOK, "authority", "add", "Serials", "urn:issn:", "--server", srv.URL, "--token", "wording-admin-token-0123456789")
	tok := tokenIn(t, out)
	_, errs := cli(t, exitInvalid, "register", "urn:issn:0378-5955", "https://example.org/", "--alias", "urn:issn:12", "--server", srv.URL, "--token", tok)
	if want := `urikit register: aliases[0]: the NSS "12" breaks the rules of namespace issn (RFC 3044): an ISSN has 8 characters (NNNN-NNNC)` + "\n"; errs != want {
		t.Errorf("an alias through the server: %q, want %q", errs, want)
	}
}

// TestServerURLHint: --server is the server's base URL; given with the
// API's path, the "no such resource" the server answers says so and
// gives the base URL to use. A name that is not there has no such hint.
func TestServerURLHint(t *testing.T) {
	hermetic(t)
	srv := startServer(t, filepath.Join(t.TempDir(), "data"))
	for _, c := range []struct{ cmd, server, want string }{
		{"lookup", srv.URL + "/api/v1", "urikit lookup: no such resource: /api/v1/api/v1/names/urn:example:a (--server takes the server's base URL, without /api/v1: " + srv.URL + ")\n"},
		{"lookup", srv.URL + "/api/v1/", "urikit lookup: no such resource: /api/v1/api/v1/names/urn:example:a (--server takes the server's base URL, without /api/v1: " + srv.URL + ")\n"},
		{"log", srv.URL + "/api", "urikit log: no such resource: /api/api/v1/log (--server takes the server's base URL, without /api: " + srv.URL + ")\n"},
		{"lookup", srv.URL + "/elsewhere", "urikit lookup: no such resource: /elsewhere/api/v1/names/urn:example:a (--server takes the server's base URL, such as https://resolver.example; is " + srv.URL + "/elsewhere it?)\n"},
		{"lookup", srv.URL, "urikit lookup: no record for urn:example:a\n"},
	} {
		args := []string{c.cmd, "--server", c.server}
		if c.cmd == "lookup" {
			args = append(args, "urn:example:a")
		}
		if _, errs := cli(t, exitInvalid, args...); errs != c.want {
			t.Errorf("%v: %q, want %q", args, errs, c.want)
		}
	}
}

// TestHelpText: every command's and subcommand's --help says its exit
// statuses once, and has no two blank lines in a row (the text and the
// options part are one blank line apart).
func TestHelpText(t *testing.T) {
	var cmds [][]string
	for n := range commands {
		cmds = append(cmds, []string{n})
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i][0] < cmds[j][0] })
	for _, sub := range []string{"add", "list", "remove", "test"} {
		cmds = append(cmds, []string{"rules", sub})
	}
	for _, sub := range []string{"add", "list", "token add", "token revoke", "transfer"} {
		cmds = append(cmds, append([]string{"authority"}, strings.Fields(sub)...))
	}
	for _, sub := range []string{"parse", "check", "canon", "equal"} {
		cmds = append(cmds, []string{"urn", sub})
	}
	for _, c := range cmds {
		code, out, errs := runCLI("", append(c, "--help")...)
		if code != exitOK || errs != "" {
			t.Errorf("%v --help: exit %d, stderr %q", c, code, errs)
			continue
		}
		if n := strings.Count(out, "Exit status:"); n > 1 || strings.Contains(out, "\n\n\n") {
			t.Errorf("%v --help: %d exit-status sentences, or two blank lines in a row:\n%s", c, n, out)
		}
	}
}
