package uri

import "sync"

// SchemeInfo is what scheme-based normalization (§6.2.3) needs to know of a
// scheme. Package scheme registers the schemes it implements; the table
// below holds the defaults so that package uri stands on its own.
type SchemeInfo struct {
	// DefaultPort is the port a URI of the scheme means when it names
	// none; 0 when the scheme has no default port.
	DefaultPort int
	// EmptyPathIsSlash: with an authority, an empty path means "/"
	// (§6.2.3, e.g. http://example.com is http://example.com/).
	EmptyPathIsSlash bool
}

var (
	schemesMu sync.RWMutex
	schemes   = map[string]SchemeInfo{
		"http":     {80, true},
		"https":    {443, true},
		"ws":       {80, true},
		"wss":      {443, true},
		"ftp":      {21, true},
		"gopher":   {70, false},
		"telnet":   {23, false},
		"tn3270":   {23, false},
		"rlogin":   {513, false},
		"nntp":     {119, false},
		"news":     {119, false},
		"wais":     {210, false},
		"prospero": {1525, false},
	}
)

// RegisterScheme adds or replaces the normalization facts of a scheme;
// name is matched case-insensitively.
func RegisterScheme(name string, info SchemeInfo) {
	schemesMu.Lock()
	defer schemesMu.Unlock()
	schemes[string(appendLower(nil, name))] = info
}

// LookupScheme returns what is known of a scheme (case-insensitive).
func LookupScheme(name string) (SchemeInfo, bool) {
	var buf [32]byte
	if len(name) > len(buf) {
		return SchemeInfo{}, false
	}
	key := appendLower(buf[:0], name)
	schemesMu.RLock()
	info, ok := schemes[string(key)]
	schemesMu.RUnlock()
	return info, ok
}

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, lower(s[i]))
	}
	return dst
}
