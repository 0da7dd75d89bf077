package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesDryRun: `rules add|remove --dry-run` checks the change as the
// server would, shows where each name tried goes before and after it, and
// writes nothing, on a data directory and through a server.
func TestRulesDryRun(t *testing.T) {
	hermetic(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := []string{"--data", data}
	with := func(args ...string) []string { return append(args, d...) }
	cli(t, exitOK, with("authority", "add", "Library", "urn:nbn:de:101-")...)
	cli(t, exitOK, with("rules", "add", "urn:nbn:de:", "https://dnb.example/")...)
	cli(t, exitOK, with("rules", "add", "urn:nbn:de:bsz:", "https://bsz.example/")...)
	cli(t, exitOK, with("register", "urn:nbn:de:101-1", "https://example.org/1")...)
	names := filepath.Join(dir, "names.txt")
	if err := os.WriteFile(names, []byte("# names cited in the catalogue\nurn:nbn:de:gbv:7-1\n\nurn:nbn:DE:gbv:7-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badNames := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badNames, []byte("urn:nbn:de:gbv:7-1\n# a comment\nurn:nbn:de:gbv:7-2 # not a comment here\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// noRule is where a name no rule applies to goes: on a data
	// directory, DDDS discovery is not there to ask; a server says what
	// its discovery does (off, without --dns).
	check := func(t *testing.T, with func(...string) []string, noRule string) {
		t.Helper()
		rulesBefore, _ := cli(t, exitOK, with("rules", "list")...)
		// A rule for a registrar's range under the country's rule.
		out, _ := cli(t, exitOK, with("rules", "add", "URN:NBN:de:gbv:", "https://gbv.example/resolver", "--dry-run",
			"--try", "urn:nbn:de:bsz:1", "--try", "urn:nbn:de:101-1", "--try-file", names)...)
		for _, want := range []string{
			"new rule: urn:nbn:de:gbv: → https://gbv.example/resolver\n",
			"  under rule 1 (urn:nbn:de: → https://dnb.example/): the names under urn:nbn:de:gbv: go to https://gbv.example/resolver instead\n",
			"same      urn:nbn:de:bsz:1: rule 2 (urn:nbn:de:bsz:) → https://bsz.example/uri-res/N2L?urn:nbn:de:bsz:1?+hops=1\n",
			"same      urn:nbn:de:101-1: its own record here (urn:nbn:de:101-1), answered before any rule\n",
			"changes   urn:nbn:de:gbv:7-1: rule 1 (urn:nbn:de:) → https://dnb.example/uri-res/N2L?urn:nbn:de:gbv:7-1?+hops=1\n" +
				"          after: the new rule (urn:nbn:de:gbv:) → https://gbv.example/resolver/uri-res/N2L?urn:nbn:de:gbv:7-1?+hops=1\n",
			// By its key form (RFC 8458 §4.3), as the server hands it on.
			"changes   urn:nbn:DE:gbv:7-2: rule 1 (urn:nbn:de:) → https://dnb.example/uri-res/N2L?urn:nbn:DE:gbv:7-2?+hops=1\n",
			"dry run: the rule would be accepted; 2 names of 4 would go elsewhere; nothing was written\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("add --dry-run lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "bsz") && strings.Contains(out, "over rule 2") {
			t.Errorf("rule 2 is not under urn:nbn:de:gbv::\n%s", out)
		}
		// Removing the registrar's rule sends its names to the country's.
		out, _ = cli(t, exitOK, with("rules", "remove", "2", "--dry-run", "--try", "urn:nbn:de:bsz:1", "--service", "I2Ls")...)
		for _, want := range []string{
			"rule 2 removed: urn:nbn:de:bsz: → https://bsz.example/\n",
			"  under rule 1 (urn:nbn:de: → https://dnb.example/): the names under urn:nbn:de:bsz: go there instead\n",
			"changes   urn:nbn:de:bsz:1: rule 2 (urn:nbn:de:bsz:) → https://bsz.example/uri-res/N2Ls?urn:nbn:de:bsz:1?+hops=1\n" +
				"          after: rule 1 (urn:nbn:de:) → https://dnb.example/uri-res/N2Ls?urn:nbn:de:bsz:1?+hops=1\n",
			"dry run: the change would be accepted; 1 name of 1 would go elsewhere; nothing was written\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("remove --dry-run lacks %q:\n%s", want, out)
			}
		}
		// Removing the country's rule: the registrar's rule lies under it.
		out, _ = cli(t, exitOK, with("rules", "remove", "1", "--dry-run")...)
		if !strings.Contains(out, "  over rule 2 (urn:nbn:de:bsz: → https://bsz.example/), which keeps the names under its prefix\n") {
			t.Errorf("remove 1 --dry-run:\n%s", out)
		}
		// What the server would refuse, the dry run refuses: a rule already
		// there for the prefix (in any spelling), a bad target, an unknown
		// ID; a name that is not a URN is reported and fails the run.
		_, errs := cli(t, exitInvalid, with("rules", "add", "urn:NBN:de:", "https://other.example/", "--dry-run")...)
		if !strings.Contains(errs, "there is already a rule for urn:nbn:de:: rule 1 → https://dnb.example/") {
			t.Errorf("add an existing prefix: %s", errs)
		}
		_, errs = cli(t, exitInvalid, with("rules", "add", "urn:nbn:fi:", "ftp://fi.example/", "--dry-run")...)
		if !strings.Contains(errs, "a resolver is reached over http or https") {
			t.Errorf("add with an ftp target: %s", errs)
		}
		cli(t, exitInvalid, with("rules", "remove", "9", "--dry-run")...)
		out, _ = cli(t, exitInvalid, with("rules", "add", "urn:nbn:fi:", "https://fi.example/", "--dry-run", "--try", "urn:nbn:fi:1", "--try", "not a urn")...)
		if !strings.Contains(out, "refused   not a urn: ") || !strings.Contains(out, "1 name of 1 would go elsewhere; 1 name was refused") {
			t.Errorf("a bad name among the tries:\n%s", out)
		}
		// A name handed on too often: 404 now (no rule takes it), 508
		// after, as the server answers (it counts hops only for a rule).
		out, _ = cli(t, exitOK, with("rules", "add", "urn:nbn:fi:", "https://fi.example/", "--dry-run", "--try", "urn:nbn:fi:1?+hops=8")...)
		if !strings.Contains(out, "changes   urn:nbn:fi:1?+hops=8: "+noRule+"\n"+
			"          after: the new rule (urn:nbn:fi:), but 508 Loop Detected: handed on 8 times already\n") {
			t.Errorf("a name at the hop limit:\n%s", out)
		}
		// Nested rules: only the nearest rule over the new prefix gives up
		// names; a prefix in another spelling of the same names is named.
		out, _ = cli(t, exitOK, with("rules", "add", "urn:nbn:de:bsz:1-", "https://bsz1.example/", "--dry-run")...)
		if !strings.Contains(out, "  under rule 2 (urn:nbn:de:bsz: → https://bsz.example/)") || strings.Contains(out, "under rule 1") ||
			!strings.Contains(out, "dry run: the rule would be accepted; no names tried (--try, --try-file); nothing was written\n") {
			t.Errorf("a rule under two:\n%s", out)
		}
		out, _ = cli(t, exitOK, with("rules", "add", "urn:nbn:DE:", "https://other.example/", "--dry-run")...)
		if !strings.Contains(out, "  the same names as rule 1 (urn:nbn:de: → https://dnb.example/), by the namespace's equivalence\n") {
			t.Errorf("a prefix equivalent to a rule's:\n%s", out)
		}
		// A refused line of a file says where it is.
		out, _ = cli(t, exitInvalid, with("rules", "add", "urn:nbn:de:gbv:", "https://gbv.example/", "--dry-run", "--try-file", badNames)...)
		if !strings.Contains(out, "refused   "+badNames+":3: urn:nbn:de:gbv:7-2 # not a comment here: ") {
			t.Errorf("a bad line of --try-file:\n%s", out)
		}
		// Without --dry-run the try flags make no sense; a bad service is
		// a usage error.
		cli(t, exitUsage, with("rules", "add", "urn:nbn:fi:", "https://fi.example/", "--try", "urn:nbn:fi:1")...)
		cli(t, exitUsage, with("rules", "add", "urn:nbn:fi:", "https://fi.example/", "--dry-run", "--service", "L2C")...)
		cli(t, exitUsage, with("rules", "add", "urn:nbn:fi:", "https://fi.example/", "--dry-run", "--try-file", filepath.Join(dir, "none.txt"))...)
		// Nothing was written.
		if after, _ := cli(t, exitOK, with("rules", "list")...); after != rulesBefore {
			t.Errorf("a dry run changed the rules:\n%s\nwas\n%s", after, rulesBefore)
		}
	}
	t.Run("data", func(t *testing.T) {
		check(t, with, "no rule: 404 (or DDDS discovery, when the server runs with --dns)")
	})

	srv := startServer(t, data, "URIKIT_ADMIN_TOKEN=dry-run-admin-token-0123456789")
	s := []string{"--server", srv.URL, "--token", "dry-run-admin-token-0123456789"}
	t.Run("server", func(t *testing.T) {
		check(t, func(args ...string) []string { return append(args, s...) }, "no rule: 404 (DDDS discovery is off: the server runs without --dns)")
	})
}
