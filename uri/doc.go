// Package uri implements RFC 3986, Uniform Resource Identifier (URI):
// Generic Syntax, to the letter.
//
// A URI value is one string plus the offsets of its components, in the
// manner of net/netip: it is small, immutable, comparable with ==, and
// parsing a valid URI allocates nothing. Accessors slice the string.
//
// The parser accepts exactly the grammar of RFC 3986 Appendix A: no spaces,
// no raw non-ASCII, no '%' without two hex digits, no IPv6 zone identifier
// (RFC 9844 took them back out of URI syntax; Parser.AllowZoneID accepts them
// for the users who still meet RFC 6874 text). Every error is an *Error with
// the byte offset of the first offending byte and a Kind (ErrInvalidHost,
// ErrInvalidPercentEncoding, ...) for errors.Is.
//
// Beyond parsing the package resolves references (§5), normalizes and
// compares URIs along the ladder of §6, percent-encodes per component
// (§2.1, §2.4) and builds URIs from unescaped parts. For the work a net/url
// user knows: Params reads and writes form-encoded queries in order, the
// With… methods change one component and return a new URI (or an error,
// never a URI that reads differently), PathSegments keeps a "%2F" inside
// its segment, and FromURL and ToURL convert to and from *url.URL.
package uri
