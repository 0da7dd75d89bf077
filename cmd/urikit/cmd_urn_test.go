package main

import (
	"strings"
	"testing"
)

func TestURNCommand(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string // substring of stdout
	}{
		{"usage", "", []string{"urn"}, exitUsage, ""},
		{"help", "", []string{"urn", "--help"}, exitOK, "subcommands:"},
		{"sub help", "", []string{"urn", "equal", "--help"}, exitOK, "usage: urikit urn equal"},
		{"unknown sub", "", []string{"urn", "frob"}, exitUsage, ""},
		{"parse", "", []string{"urn", "parse", "URN:ISBN:0-395-36341-1?+s=I2L"}, exitOK, "  key          urn:isbn:9780395363416"},
		{"parse draft", "", []string{"urn", "parse", "urn:isbn:0-395-36341-1?s=I2L&s=I2R"}, exitOK, "ignored      s="},
		{"parse legacy", "", []string{"urn", "parse", `<URN::IANA:merit.edu:mrt\:2345>`}, exitOK, "opaque        mrt:2345"},
		{"parse json", "", []string{"urn", "parse", "--json", "urn:ex:a#f"}, exitOK, `"f_component":"f"`},
		{"parse invalid", "", []string{"urn", "parse", "urn:ab-:x"}, exitInvalid, `      ^ NID ends with "-"`},
		{"check stdin", "urn:isbn:0-395-36341-1\nurn:x-a:b\n", []string{"urn", "check"}, exitOK, "is experimental"},
		{"check invalid", "", []string{"urn", "check", "urn:isbn:0-395-36341-2"}, exitInvalid, "bad ISBN-10 check digit"},
		{"check syntax", "", []string{"urn", "check", "urn:ab:c?d"}, exitInvalid, `"?" not followed by "+" or "="`},
		{"canon", "", []string{"urn", "canon", "URN:Ex:a%2c?+r"}, exitOK, "urn:ex:a%2C\n"},
		{"canon ns", "", []string{"urn", "canon", "--level", "namespace", "urn:ISBN:0-395-36341-1"}, exitOK, "urn:isbn:9780395363416\n"},
		{"canon bad level", "", []string{"urn", "canon", "--level", "x", "urn:a:b"}, exitUsage, ""},
		{"equal", "", []string{"urn", "equal", "urn:ex:a", "URN:EX:a"}, exitOK, "equivalent (lexical)"},
		{"equal no", "", []string{"urn", "equal", "urn:isbn:0-395-36341-1", "urn:isbn:9780395363416"}, exitInvalid, "not equivalent"},
		{"equal ns", "", []string{"urn", "equal", "--level", "namespace", "urn:isbn:0-395-36341-1", "urn:isbn:9780395363416"}, exitOK, "RFC 3187"},
		{"equal stdin", "urn:ex:a URN:EX:a\n", []string{"urn", "equal", "--json"}, exitOK, `"equal":true`},
		{"equal one arg", "", []string{"urn", "equal", "urn:ex:a"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errText := runCLI(tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q", code, out, errText, tt.code, tt.out)
			}
		})
	}
}
