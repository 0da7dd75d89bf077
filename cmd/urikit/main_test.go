package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
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
		// equal and urn equal: exit 1 on "not equal", like cmp; both read
		// pairs from standard input.
		{"not equal", "", []string{"equal", "--level", "simple", "http://a/", "http://A/"}, exitInvalid, "not equal", ""},
		{"equal arity", "", []string{"equal", "a:b"}, exitUsage, "", "takes two URIs"},
		{"equal stdin", "http://a/ HTTP://A:80\nx:y\tx:y\n", []string{"equal", "--level", "scheme"}, exitOK, "equal at level scheme\n  http://a/\n  http://a/\nequal at level scheme\n  x:y", ""},
		{"equal stdin one differs", "a:b a:b\na:b a:c\n", []string{"equal"}, exitInvalid, "not equal", ""},
		{"equal stdin bad line", "a:b\n", []string{"equal"}, exitInvalid, "", "want two URIs on the line, got 1"},
		{"urn equal not", "", []string{"urn", "equal", "urn:a1:b", "urn:a1:c"}, exitInvalid, "not equivalent", ""},
		{"urn equal stdin", "urn:a1:b URN:A1:b\n", []string{"urn", "equal"}, exitOK, "equivalent (lexical)", ""},
		// Options anywhere before "--"; never an option read as an input.
		{"option after input", "", []string{"normalize", "http://A:80/", "--level", "scheme"}, exitOK, "http://a/\n", ""},
		{"option after input =", "", []string{"normalize", "http://A:80/", "--level=scheme"}, exitOK, "http://a/\n", ""},
		{"bool option after input", "", []string{"parse", "http://a/", "--json"}, exitOK, `"host":"a"`, ""},
		{"unknown option after input", "", []string{"normalize", "http://A/", "--levle", "scheme"}, exitUsage, "", "flag provided but not defined"},
		{"double dash", "", []string{"normalize", "--", "--level"}, exitOK, "--level\n", ""},
		{"urn option after input", "", []string{"urn", "canon", "urn:ISBN:0-395-36341-1", "--level", "namespace"}, exitOK, "urn:isbn:9780395363416\n", ""},
		{"version", "", []string{"--version"}, exitOK, "urikit ", ""},
		// One vocabulary: "byte N".
		{"urn byte", "", []string{"urn", "check", "urn:ab-:x"}, exitInvalid, "(byte 7)", ""},
		{"clean byte", "", []string{"clean", "http://example.com:8x/"}, exitInvalid, "", "(byte 21)"},
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

// TestCaretWindow: an error on a huge input shows a window around the
// offending byte, escapes bytes that are not UTF-8 and characters that do
// not print, and puts the caret under the offending byte.
func TestCaretWindow(t *testing.T) {
	long := "http://a/" + strings.Repeat("x", 10<<20) + " \xff\u200by" + strings.Repeat("y", 1<<20)
	code, out, _ := runCLI("", "parse", long)
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	if len(out) > 400 {
		t.Fatalf("%d bytes of output for an error", len(out))
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "  …xxx") || !strings.Contains(lines[1], ` \xff\u200by`) || !strings.HasSuffix(lines[1], "y…") {
		t.Fatalf("window: %q", out)
	}
	if !utf8.ValidString(out) {
		t.Error("output is not UTF-8")
	}
	col := strings.Index(lines[2], "^")
	if got := []rune(lines[1])[col]; got != ' ' {
		t.Errorf("caret under %q, want the space:\n%s\n%s", got, lines[1], lines[2])
	}
	if !strings.Contains(lines[2], "(byte 10485769)") {
		t.Errorf("reason line: %q", lines[2])
	}
	// A short input is shown whole, the caret under the byte.
	_, out, _ = runCLI("", "parse", "http://a/\x01b c")
	if !strings.Contains(out, "  http://a/\\x01b c\n           ^ invalid control character 0x01 in path (byte 9)") {
		t.Errorf("short input: %q", out)
	}
}

// TestFlagErrors: a flag a command does not take, or a bad value for one,
// is a usage error like the others: one line naming the command and the
// flag as written, the flag it is close to if there is one, and where the
// help is; not the flag package's bare message and the whole help. An
// unknown command is one line too, with the command it is close to.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--adr", "x"}, "urikit serve: flag provided but not defined: --adr (did you mean --addr?)\n(run 'urikit serve --help')\n"},
		{[]string{"register", "urn:example:a", "https://example.org/", "--tpye", "text/html"},
			"urikit register: flag provided but not defined: --tpye (did you mean --type?)\n(run 'urikit register --help')\n"},
		{[]string{"import", "--wokers", "2", "f.jsonl"}, "urikit import: flag provided but not defined: --wokers (did you mean --workers?)\n(run 'urikit import --help')\n"},
		{[]string{"log", "--sever", "http://x"}, "urikit log: flag provided but not defined: --sever (did you mean --server?)\n(run 'urikit log --help')\n"},
		{[]string{"rules", "add", "urn:a1:", "https://x/", "--dry"}, "urikit rules add: flag provided but not defined: --dry (did you mean --dry-run?)\n(run 'urikit rules add --help')\n"},
		{[]string{"parse", "-nope=1", "a:b"}, "urikit parse: flag provided but not defined: -nope\n(run 'urikit parse --help')\n"},
		{[]string{"serve", "--cache", "many"}, "urikit serve: invalid value \"many\" for flag --cache: parse error\n(run 'urikit serve --help')\n"},
		// A value left out at the end is not taken from the "--" that
		// ends the options.
		{[]string{"serve", "--data"}, "urikit serve: flag needs an argument: --data\n(run 'urikit serve --help')\n"},
		{[]string{"serv"}, "urikit: unknown command \"serv\" (did you mean 'urikit serve'?); 'urikit --help' lists the commands\n"},
		{[]string{"frob"}, "urikit: unknown command \"frob\"; 'urikit --help' lists the commands\n"},
		{[]string{"rules", "tset", "urn:a1:b"}, "urikit rules: unknown subcommand \"tset\" (did you mean 'urikit rules test'?); 'urikit rules --help' lists the subcommands\n"},
		{[]string{"urn", "pasre"}, "urikit urn: unknown subcommand \"pasre\" (did you mean 'urikit urn parse'?); 'urikit urn --help' lists the subcommands\n"},
	} {
		code, out, errs := runCLI("", c.args...)
		if code != exitUsage || errs != c.want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr\n%s\nwant 2 and\n%s", c.args, code, out, errs, c.want)
		}
	}
}
