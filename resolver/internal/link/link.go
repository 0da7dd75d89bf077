// Package link decides which URLs of the directory's data a resolver page
// may make into links. A location need only be an absolute URI (RFC 3986
// §4.3), so a naming authority can register javascript: or data: ones;
// html/template stops those by replacing every URL whose scheme is not
// http, https or mailto with "#ZgotmplZ", which also breaks the ftp,
// gopher or news links a directory of old citations is full of. Href
// lets through the schemes that only ever navigate or hand the URL to
// another program, and nothing else: the page shows every other URL as
// text.
package link

import (
	"html/template"
	"strings"
)

// navigable are the schemes whose URLs a browser follows or hands to
// another program, never runs: the web's own, RFC 1738's (ftp, gopher,
// mailto, news, nntp, telnet, wais, file, prospero) and their secured or
// later kin.
var navigable = map[string]bool{
	"http": true, "https": true, "ftp": true, "ftps": true, "sftp": true,
	"gopher": true, "mailto": true, "news": true, "nntp": true, "telnet": true,
	"wais": true, "file": true, "prospero": true,
}

// Href returns url for an href attribute when its scheme is navigable,
// and "" otherwise (no scheme, or one such as javascript:, vbscript: or
// data:, which a browser runs or renders as a page of the resolver's
// origin). Schemes compare case-insensitively (RFC 3986 §3.1).
func Href(url string) template.URL {
	scheme, _, ok := strings.Cut(url, ":")
	if !ok || !navigable[strings.ToLower(scheme)] {
		return ""
	}
	return template.URL(url)
}

// MaxField is how long a Link header field Field builds may grow: a
// reverse proxy's buffer for a response's headers is often 4 or 8 KiB in
// all (nginx's proxy_buffer_size), and other headers need room too.
const MaxField = 2048

// Field returns one Link header field value (RFC 8288 §3) linking each
// of targets with relation rel, comma-separated, in order: as many as fit
// in MaxField bytes, and none that could not stand between the angle
// brackets (Safe). "" when there are none.
func Field(targets []string, rel string) string {
	var b strings.Builder
	for _, t := range targets {
		if !Safe(t) {
			continue
		}
		n := len(t) + len(`<>; rel=""`) + len(rel)
		if b.Len() > 0 {
			n += len(", ")
		}
		if b.Len()+n > MaxField {
			break
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<" + t + `>; rel="` + rel + `"`)
	}
	return b.String()
}

// Safe reports whether s can stand between the angle brackets of a Link
// header as it is: no '<', '>' or '"', no controls or spaces, nothing
// outside ASCII.
func Safe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '>' || c == '<' || c == '"' {
			return false
		}
	}
	return true
}
