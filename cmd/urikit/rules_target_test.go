package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/sqlite"
)

// TestRuleTargetRefused: `rules add --dry-run` refuses a target the
// server refuses (userinfo, no host, a port out of range). A rule stored
// before those checks, with its history entry as an older build wrote
// it, is verified (verify notes it), listed with a note, and its names
// are answered 502 delegation-failed by the server, never redirected.
func TestRuleTargetRefused(t *testing.T) {
	hermetic(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	d := []string{"--data", dir}
	with := func(args ...string) []string { return append(args, d...) }
	cli(t, exitOK, with("rules", "add", "urn:nbn:de:", "https://dnb.example/")...)
	for target, why := range map[string]string{
		"http://trusted.example@evil.example/": "target: a resolver's base URL has no userinfo (user@ before the host) (at byte 7)",
		"http:///x":                            "target: a resolver's base URL has a host",
		"https://h.example:99999/":             "target: a port is 1 to 65535, not 99999 (at byte 18)",
	} {
		_, errs := cli(t, exitInvalid, with("rules", "add", "urn:t9:", target, "--dry-run")...)
		if !strings.Contains(errs, why) {
			t.Errorf("add %s --dry-run: %s", target, errs)
		}
	}

	// A rule as an older build stored it: the row and its rule.add entry.
	st, err := sqlite.Open(ctx, dir, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := resolver.Rule{Prefix: "urn:t9:", Target: "http://trusted.example@evil.example/", Created: time.Now().UTC()}
	err = st.Update(ctx, func(tx resolver.Tx) error {
		if err := tx.InsertRule(ctx, &r); err != nil {
			return err
		}
		rs, err := tx.Rules(ctx)
		if err != nil {
			return err
		}
		for _, x := range rs {
			if x.ID == r.ID {
				r = x // as stored, times and all
			}
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return tx.Append(ctx, &resolver.Entry{Time: r.Created, Action: resolver.ActionRuleAdd,
			Subject: "rule:" + strconv.FormatInt(r.ID, 10), Actor: "admin", Data: data})
	})
	if cerr := st.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}

	out, _ := cli(t, exitOK, with("verify")...)
	if !strings.Contains(out, "access verified: 0 authorities, 0 tokens and 2 delegation rules") ||
		!strings.Contains(out, "note: 1 delegation rule has a target that a rule change refuses today, stored before that check (the first: rule 2, urn:t9: → http://trusted.example@evil.example/: target: a resolver's base URL has no userinfo") {
		t.Errorf("verify:\n%s", out)
	}
	out, _ = cli(t, exitOK, with("rules", "list")...)
	if !strings.Contains(out, "note: rule 2's target is refused today (target: a resolver's base URL has no userinfo (user@ before the host) (at byte 7)): names under urn:t9: are answered 502 delegation-failed") ||
		strings.Contains(out, "note: rule 1") {
		t.Errorf("rules list:\n%s", out)
	}

	srv := startServer(t, dir)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, target := range []string{"/urn:t9:x", "/uri-res/N2L?urn:t9:x"} {
		res, err := noFollow.Get(srv.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadGateway || res.Header.Get("Location") != "" {
			t.Errorf("%s: %d %q, want 502", target, res.StatusCode, res.Header.Get("Location"))
		}
	}
	res, err := noFollow.Get(srv.URL + "/urn:nbn:de:x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("the good rule: %d", res.StatusCode)
	}
}
