package rfc3986

import "strconv"

// AppendPort writes ":port" for a port of an authority being normalized.
// With schemeRules (scheme-based normalization, §6.2.3, for a scheme whose
// default port is defaultPort) the leading zeros go, and so does the whole
// port, ':' included, when it is empty or the default compared as a number
// ("http://a:080" and "http://a:" are "http://a"); else the port is
// written as it is.
func AppendPort(dst []byte, port string, schemeRules bool, defaultPort int) []byte {
	if !schemeRules {
		dst = append(dst, ':')
		return append(dst, port...)
	}
	i := 0
	for i < len(port)-1 && port[i] == '0' {
		i++
	}
	digits := port[i:]
	if digits == "" || defaultPort > 0 && digits == strconv.Itoa(defaultPort) {
		return dst
	}
	dst = append(dst, ':')
	return append(dst, digits...)
}
