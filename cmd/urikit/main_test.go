package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs the tool in-process with the given standard input.
func runCLI(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestCLI(t *testing.T) {
	tests := []struct {
		name    string
		stdin   string
		args    []string
		code    int
		out     string // substring of stdout
		errText string // substring of stderr
	}{
		{"no command", "", nil, exitUsage, "", "usage: urikit"},
		{"unknown command", "", []string{"frob"}, exitUsage, "", `unknown command "frob"`},
		{"help", "", []string{"--help"}, exitOK, "commands:", ""},
		{"parse help", "", []string{"parse", "--help"}, exitOK, "usage: urikit parse", ""},
		{"parse table", "", []string{"parse", "HTTP://User@Example.COM:80/a/./b/../c?q#f"}, exitOK, "  host       Example.COM  (reg-name)", ""},
		{"parse undefined", "", []string{"parse", "mailto:a@b"}, exitOK, "  query      (undefined)", ""},
		{"parse empty", "", []string{"parse", "http://a/?"}, exitOK, `  query      ""`, ""},
		{"parse decoded", "", []string{"parse", "http://a/%7Ex"}, exitOK, `/%7Ex  → "/~x"`, ""},
		{"parse invalid", "", []string{"parse", "http://a/b c"}, exitInvalid, "          ^ invalid space in path (byte 10)", ""},
		{"parse json", "", []string{"parse", "--json", "http://[::1]:80/"}, exitOK, `"host_type":"ipv6"`, ""},
		{"parse json invalid", "", []string{"parse", "--json", "http://a:8x/"}, exitInvalid, `"offset":11`, ""},
		{"parse zone refused", "", []string{"parse", "http://[fe80::1%25eth0]/"}, exitInvalid, "RFC 9844", ""},
		{"parse zone allowed", "", []string{"parse", "--allow-zone-id", "http://[fe80::1%25eth0]/"}, exitOK, "(ipv6)", ""},
		{"parse stdin", "http://a/\nfoo:bar\n", []string{"parse"}, exitOK, "foo:bar\n  scheme     foo", ""},
		{"parse stdin one bad", "http://a/\n%zz\n", []string{"parse"}, exitInvalid, "invalid URI", ""},
		{"bad flag", "", []string{"parse", "--nope"}, exitUsage, "", "flag provided but not defined"},
		{"resolve", "", []string{"resolve", "http://a/b/c/d;p?q", "../g", "?y"}, exitOK, "http://a/b/g\nhttp://a/b/c/d;p?y\n", ""},
		{"resolve stdin", "g\n", []string{"resolve", "http://a/b/c/d;p?q"}, exitOK, "http://a/b/c/g\n", ""},
		{"resolve rfc2396", "", []string{"resolve", "--rfc2396", "http://a/b/c/d;p?q", "?y", "g?y/../x"}, exitOK, "http://a/b/c/?y\nhttp://a/b/c/g?y/../x\n", ""},
		{"resolve draft 1997", "", []string{"resolve", "--draft-1997", "http://a/b/c/d;p?q", "?y", "g?y/../x"}, exitOK, "http://a/b/c/?y\nhttp://a/b/c/x\n", ""},
		{"resolve non-strict", "", []string{"resolve", "--non-strict", "http://a/b/c/d;p?q", "http:g"}, exitOK, "http://a/b/c/g\n", ""},
		{"resolve relative base", "", []string{"resolve", "a/b", "c"}, exitInvalid, "", "invalid character '/' in scheme"},
		{"resolve no base", "", []string{"resolve"}, exitUsage, "", "missing BASE"},
		{"normalize", "", []string{"normalize", "HTTP://User@Example.COM:80/a/./b/../c?q#f"}, exitOK, "http://User@example.com:80/a/c?q#f\n", ""},
		{"normalize scheme", "", []string{"normalize", "--level", "scheme", "HTTP://Example.COM:80"}, exitOK, "http://example.com/\n", ""},
		{"normalize bad level", "", []string{"normalize", "--level", "x", "a:b"}, exitUsage, "", "unknown level"},
		{"equal", "", []string{"equal", "--level", "scheme", "http://example.com", "HTTP://example.com:80/"}, exitOK, "equal at level scheme", ""},
		{"not equal", "", []string{"equal", "--level", "simple", "http://a/", "http://A/"}, exitOK, "not equal", ""},
		{"equal arity", "", []string{"equal", "a:b"}, exitUsage, "", "exactly two"},
		{"batch", `{"op":"parse","input":"a:b"}` + "\nnot json\n", []string{"batch"}, exitOK, `"scheme":"a"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errText := runCLI(tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errText)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("stdout %q does not contain %q", out, tt.out)
			}
			if !strings.Contains(errText, tt.errText) {
				t.Errorf("stderr %q does not contain %q", errText, tt.errText)
			}
		})
	}
}
