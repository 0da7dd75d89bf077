package main

import (
	"strings"
	"testing"
)

func TestIRICommands(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   []string // substrings of stdout
		errs  []string // substrings of stderr
	}{
		{"iri", "", []string{"iri", "https://bücher.example/Köln"}, exitOK, []string{
			"  host       bücher.example  (reg-name)", "  uri        https://b%C3%BCcher.example/K%C3%B6ln",
			"  uri_idna   https://xn--bcher-kva.example/K%C3%B6ln"}, nil},
		{"iri no idna", "", []string{"iri", "http://xn--.ü/"}, exitOK, []string{"  uri_idna   (none: "}, nil},
		{"iri warning", "", []string{"iri", "http://pаypal.com/"}, exitOK, []string{"  warning    mixed-script: "}, nil},
		{"iri invalid", "", []string{"iri", "http://a/\u202ex"}, exitInvalid, []string{"invalid IRI:", "^ bidi formatting character U+202E", "(byte 9)"}, nil},
		{"iri json", "", []string{"iri", "--json", "http://例え.テスト/"}, exitOK, []string{`"uri_idna":"http://xn--r8jz45g.xn--zckzah/"`}, nil},
		{"iri json invalid", "", []string{"iri", "--json", "http://a/\ufffd"}, exitInvalid, []string{`"ok":false`, `"offset":9`}, nil},
		{"iri nfc", "", []string{"iri", "--nfc", "http://a/Vie\u0302\u0323t"}, exitOK, []string{"  path       /Vi\u1ec7t"}, nil},
		{"iri stdin", "http://ü/\n../ö\n", []string{"iri"}, exitOK, []string{"  path       ../ö"}, nil},
		{"parse --iri", "", []string{"parse", "--iri", "https://ja.wikipedia.org/wiki/東京"}, exitOK, []string{"  path       /wiki/東京"}, nil},
		{"parse without --iri", "", []string{"parse", "https://ja.wikipedia.org/wiki/東京"}, exitInvalid, []string{"invalid URI:"}, nil},
		{"to-iri", "", []string{"to-iri", "http://a/D%C3%BCrst%2F%FC%e2%80%ae"}, exitOK, []string{"http://a/Dürst%2F%FC%E2%80%AE\n"}, nil},
		{"to-iri stdin", "r%C3%A9sum%C3%A9.html\n", []string{"to-iri"}, exitOK, []string{"résumé.html\n"}, nil},
		{"to-iri invalid", "", []string{"to-iri", "http://a/ü"}, exitInvalid, nil, []string{"invalid URI:", "(byte 9)"}},
		{"extract", "see http://säfte.de/x and http://a.b/\n", []string{"extract"}, exitOK, []string{"http://a.b/\n"}, nil},
		{"extract --iri", "see http://säfte.de/x and http://a.b/\n", []string{"extract", "--iri"}, exitOK, []string{"http://säfte.de/x\nhttp://a.b/\n"}, nil},
		{"extract --iri --to-uri", "see http://säfte.de/ü and http://xn--.ü/ö\n", []string{"extract", "--iri", "--to-uri"}, exitOK,
			[]string{"http://xn--sfte-loa.de/%C3%BC\nhttp://xn--.%C3%BC/%C3%B6\n"}, nil},
		{"extract --to-uri alone", "", []string{"extract", "--to-uri"}, exitUsage, nil, nil},
		{"inspect iri", "", []string{"inspect", "http://раураl.com⁄x/%E2%80%AE"}, exitOK, []string{
			"IRI http://раураl.com⁄x/%E2%80%AE, as a URI", "    bidi: ", "    confusable-delimiter: ", "    mixed-script: "}, nil},
		{"inspect uri with iri form", "", []string{"inspect", "--json", "http://xn--pypal-4ve.com/"}, exitOK, []string{`"code":"mixed-script"`}, nil},
		{"inspect iri invalid", "", []string{"inspect", "http://a/\u202e"}, exitInvalid, nil, nil},
		{"iri help", "", []string{"iri", "--help"}, exitOK, []string{"usage: urikit iri"}, nil},
		// Options anywhere before "--", as for every command.
		{"iri option after input", "", []string{"iri", "http://ü/", "--json"}, exitOK, []string{`"host":"ü"`}, nil},
		{"parse option after input", "", []string{"parse", "http://ü/", "--iri"}, exitOK, []string{"  host       ü  (reg-name)"}, nil},
		{"extract options after file", "see http://säfte.de/ö\n", []string{"extract", "-", "--to-uri", "--iri"}, exitOK, []string{"http://xn--sfte-loa.de/%C3%B6\n"}, nil},
		{"to-iri double dash", "", []string{"to-iri", "--", "-x%C3%BC"}, exitOK, []string{"-xü\n"}, nil},
		{"inspect iri invalid byte", "", []string{"inspect", "http://ü/a b"}, exitInvalid, nil, []string{"not a valid URI-reference or IRI-reference", "(byte 11)"}},
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
			for _, want := range tt.errs {
				if !strings.Contains(errText, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errText)
				}
			}
		})
	}
}
