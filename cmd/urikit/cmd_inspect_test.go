package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestInspectAndSchemeCommands(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   []string // substrings of stdout
	}{
		{"inspect", "", []string{"inspect", "http://u:p@0x7f.1:25/a/%2e%2E/%0d"}, exitOK, []string{
			`  userinfo   "u:p"  <- not the host`, `  host       "0x7f.1"  (read as IPv4 127.0.0.1)`,
			"6 warning(s):", "    rare-ip: ", "127.0.0.1", "    password: ", "    port-mismatch: port 25 is smtp's"}},
		{"inspect clean", "", []string{"inspect", "https://example.com/"}, exitOK, []string{"  no warnings"}},
		{"inspect relative", "", []string{"inspect", "../a"}, exitOK, []string{"  scheme     (undefined)"}},
		{"inspect invalid", "", []string{"inspect", "http://a b/"}, exitInvalid, nil},
		{"inspect stdin", "http://@h/\nhttp://h:23/\n", []string{"inspect"}, exitOK, []string{"userinfo:", "port-mismatch:"}},
		{"inspect json", "", []string{"inspect", "--json", "http://2130706433/"}, exitOK, []string{
			`"code":"rare-ip"`, `"address":"127.0.0.1"`, `"host":"2130706433"`}},
		{"inspect json invalid", "", []string{"inspect", "--json", "http://[/"}, exitInvalid, []string{`"ok":false`, `"offset":`}},
		{"inspect help", "", []string{"inspect", "--help"}, exitOK, []string{"usage: urikit inspect"}},
		{"inspect bad flag", "", []string{"inspect", "--frob"}, exitUsage, nil},
		{"scheme", "", []string{"scheme", "gopher://h/7x%09y"}, exitOK, []string{"  gtype      \"7\"", "  search     \"y\"", "RFC 4266"}},
		{"scheme json", "", []string{"scheme", "--json", "mailto:a@b?subject=caf%C3%A9"}, exitOK, []string{`"subject":"café"`, `"to":["a@b"]`}},
		{"scheme unknown", "", []string{"scheme", "foo:bar"}, exitInvalid, nil},
		{"scheme broken", "", []string{"scheme", "http:"}, exitInvalid, nil},
		{"scheme help", "", []string{"scheme", "--help"}, exitOK, []string{"gopher", "mailto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errText := runCLI(tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errText)
			}
			for _, want := range tt.out {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestInspectColour: on a terminal the userinfo and the host get different
// styles, and the userinfo's style is never the host's.
func TestInspectColour(t *testing.T) {
	var out, errb bytes.Buffer
	s := &stdio{in: strings.NewReader(""), out: &out, err: &errb, color: true}
	if code := run([]string{"inspect", "http://www.bank.example@evil.example/"}, s); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"http://" + ansiUserinfo + "www.bank.example" + ansiReset + "@" + ansiHost + "evil.example" + ansiReset + "/",
		ansiUserinfo + `"www.bank.example"` + ansiReset,
		ansiHost + `"evil.example"` + ansiReset,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
	if ansiUserinfo == ansiHost {
		t.Error("userinfo and host share a style")
	}
}
