package uri

import (
	"maps"
	"strings"

	"github.com/urikit/urikit/internal/ascii"
)

// SchemeInfo is what scheme-based normalization (§6.2.3) needs to know of a
// scheme.
type SchemeInfo struct {
	// DefaultPort is the port a URI of the scheme means when it names
	// none; 0 when the scheme has no default port.
	DefaultPort int
	// EmptyPathIsSlash: with an authority, an empty path means "/"
	// (§6.2.3, e.g. http://example.com is http://example.com/).
	EmptyPathIsSlash bool
	// DefaultHost is the host the scheme means when the host is empty
	// (§3.2.2: "If the URI scheme defines a default for host, then that
	// default applies when the host subcomponent is undefined or when the
	// registered name is empty"), in lower case; "" when it defines none.
	// Scheme-based normalization writes that host as the empty host, as it
	// drops a default port: for file, "localhost" (RFC 8089 §2), so
	// file://localhost/etc is file:///etc.
	DefaultHost string
}

// Schemes is a table of scheme facts keyed by scheme name in lower case,
// for a Normalizer that should know more schemes, or other facts, than
// the built-in table (BuiltinSchemes gives a copy of it to start from).
type Schemes map[string]SchemeInfo

// Lookup returns the facts of the scheme name, matched case-insensitively;
// names of any length are found (IANA registers some of 36 bytes).
func (t Schemes) Lookup(name string) (SchemeInfo, bool) {
	var buf [64]byte
	if len(name) <= len(buf) {
		// The conversion in the index expression does not allocate.
		info, ok := t[string(ascii.AppendLower(buf[:0], name))]
		return info, ok
	}
	info, ok := t[strings.ToLower(name)]
	return info, ok
}

// builtin holds the facts of the schemes whose specifications give a
// default port or host, or make an empty path "/": the table the batch
// protocol lists for its normalize op, plus file's default host. It is
// never written: every URI value normalizes the same way for the life of
// the process.
var builtin = Schemes{
	"http":     {DefaultPort: 80, EmptyPathIsSlash: true},  // RFC 9110 §4.2.1, §4.2.3
	"https":    {DefaultPort: 443, EmptyPathIsSlash: true}, // RFC 9110 §4.2.2, §4.2.3
	"ws":       {DefaultPort: 80, EmptyPathIsSlash: true},  // RFC 6455 §3
	"wss":      {DefaultPort: 443, EmptyPathIsSlash: true}, // RFC 6455 §3
	"ftp":      {DefaultPort: 21, EmptyPathIsSlash: true},  // RFC 1738 §3.2
	"gopher":   {DefaultPort: 70},                          // RFC 4266 §2.1
	"telnet":   {DefaultPort: 23},                          // RFC 4248 §2
	"tn3270":   {DefaultPort: 23},                          // the 1993 URL draft, as telnet
	"rlogin":   {DefaultPort: 513},                         // the 1993 URL draft; the rlogin service's port
	"nntp":     {DefaultPort: 119},                         // RFC 5538 §2
	"news":     {DefaultPort: 119},                         // RFC 5538 §2
	"wais":     {DefaultPort: 210},                         // RFC 4156 §2
	"prospero": {DefaultPort: 1525},                        // RFC 4157 §2
	"file":     {DefaultHost: "localhost"},                 // RFC 8089 §2, RFC 3986 §3.2.2
}

// LookupScheme returns what the built-in table knows of a scheme
// (case-insensitive). Package scheme takes its default ports from here.
func LookupScheme(name string) (SchemeInfo, bool) { return builtin.Lookup(name) }

// BuiltinSchemes returns a copy of the built-in table, for a caller to
// extend and give to a Normalizer.
func BuiltinSchemes() Schemes { return maps.Clone(builtin) }
