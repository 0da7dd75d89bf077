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
