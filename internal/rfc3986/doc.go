// Package rfc3986 holds the algorithms of RFC 3986 that packages uri and
// iri both apply, unchanged, to their own values: reference resolution
// (§5.2), remove_dot_segments (§5.2.4), the IP literals and IPv4 addresses
// of §3.2.2, and the port rule of scheme-based normalization (§6.2.3).
//
// RFC 3987 takes each of them over as it is: IRI resolution is RFC 3986's
// algorithm applied to IRIs (§6.5), an IP-literal or IPv4address of an
// IRI is RFC 3986's, ASCII only (§2.2), and path segment normalization is
// §5.2.4's (§5.3.2.4). The algorithms only ever look for ASCII delimiters
// ('/', '.', ':', '[', digits), and no byte of a UTF-8 encoded non-ASCII
// character is one, so they run on IRI text without change.
//
// What differs between the two packages stays in them: which characters a
// component may hold (ucschar and iprivate are IRI-only), how a parse
// error is typed and worded, and the RFC 6874 zone identifier, which only
// package uri lets in. So the functions here take and return plain strings
// and offsets, never an error: the reason for a failure is a string that
// the caller wraps in its own error type.
package rfc3986
