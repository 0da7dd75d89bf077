package iri

import (
	"unicode/utf8"

	"github.com/urikit/urikit/internal/ascii"
	"github.com/urikit/urikit/uri"
)

// URI returns the URI reference that x maps to by RFC 3987 §3.1: the UTF-8
// octets of every non-ASCII character (each a ucschar or iprivate, since
// x is valid) percent-encoded with upper-case hex, nothing else changed.
// The host is percent-encoded too; URIWithIDNA converts it by IDNA instead.
//
// Step 1 of §3.1 does not apply: x is already UTF-8, a Unicode encoding
// (variant c), and is not normalized. An ASCII IRI is its own URI, and
// mapping it allocates nothing.
func (x IRI) URI() uri.URI {
	s := x.s
	if x.has(nonASCII) {
		s = string(appendPctNonASCII(make([]byte, 0, len(x.s)+len(x.s)/2), x.s))
	}
	u, err := uri.ParseReference(s)
	if err != nil {
		// §3.1: "The above mapping from IRIs to URIs produces URIs fully
		// conforming to [RFC3986]."
		panic("iri: the URI of a valid IRI does not parse: " + err.Error())
	}
	return u
}

// AppendURI appends the text of x.URI() to dst.
func (x IRI) AppendURI(dst []byte) []byte {
	if !x.has(nonASCII) {
		return append(dst, x.s...)
	}
	return appendPctNonASCII(dst, x.s)
}

// appendPctNonASCII is §3.1 step 2: each octet of a non-ASCII character as
// %HH, upper-case hex (step 2.2: "SHOULD use uppercase letters").
func appendPctNonASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			continue
		}
		dst = ascii.AppendPct(dst, c)
	}
	return dst
}

// URIWithIDNA is URI, except that a reg-name host holding non-ASCII
// characters is converted to ASCII by IDNA instead of being
// percent-encoded (the MAY of RFC 3987 §3.1, for schemes whose hosts are
// domain names): the host is percent-decoded and given to the WHATWG URL
// Standard's "domain to ASCII" with beStrict false (see DomainToASCII). This
// is the URI a browser fetches. A host without non-ASCII characters is left
// as written. The error says why the host cannot be converted; the IRI is
// valid all the same and x.URI() still maps it.
func (x IRI) URIWithIDNA() (uri.URI, error) {
	b, err := x.AppendURIWithIDNA(nil)
	if err != nil {
		return uri.URI{}, err
	}
	return uri.ParseReference(string(b))
}

// AppendURIWithIDNA appends the text of x.URIWithIDNA() to dst.
func (x IRI) AppendURIWithIDNA(dst []byte) ([]byte, error) {
	if !x.has(nonASCII) {
		return append(dst, x.s...), nil
	}
	host := x.Host()
	if x.kind != uri.RegName || isASCII(host) {
		return appendPctNonASCII(dst, x.s), nil
	}
	decoded := unescape(host)
	a, err := DomainToASCII(decoded)
	if err != nil {
		return dst, err
	}
	dst = appendPctNonASCII(dst, x.s[:x.hostStart])
	dst = append(dst, a...)
	return appendPctNonASCII(dst, x.s[x.hostEnd:]), nil
}

// FromURI turns the URI reference u into an IRI by RFC 3987 §3.2, for
// display, step by step:
//
//  1. the URI is a sequence of ASCII octets;
//  2. every percent-encoding is decoded except those of "%", of the
//     reserved characters and of the ASCII characters that a URI cannot
//     hold (so "%7E" becomes "~", "%2F" stays as written);
//  3. the decoded octets that are not part of strictly well-formed UTF-8
//     are percent-encoded again ("%FC" stays: RFC 3987 §3.2 forbids
//     guessing another encoding);
//  4. so are the characters that may not stand unencoded at that place of
//     an IRI (§2.2: a ucschar anywhere but the scheme, port and IP
//     literal, an iprivate in the query only) and the bidi formatting
//     characters (§4.1);
//  5. the result is read as UTF-8.
//
// An octet encoded again is written with upper-case hex. Nothing else
// changes: an "xn--" host label is not decoded. Mapping the result back
// with URI gives u again, up to the case of hex digits and the encodings
// of unreserved characters (§3.2). The error is for a u that no IRI can
// hold (an IPv6 zone identifier, let in by uri.Parser.AllowZoneID).
func FromURI(u uri.URI) (IRI, error) {
	return ParseReference(string(AppendFromURI(nil, u)))
}

// FromURIString parses s as a URI reference (strict RFC 3986) and converts
// it with FromURI. A syntax error is the *uri.Error of the parse.
func FromURIString(s string) (IRI, error) {
	u, err := uri.ParseReference(s)
	if err != nil {
		return IRI{}, err
	}
	return FromURI(u)
}

// AppendFromURI appends the text of FromURI(u) to dst.
func AppendFromURI(dst []byte, u uri.URI) []byte {
	s := u.String()
	i := 0
	for i < len(s) && s[i] != '%' {
		i++
	}
	if i == len(s) {
		return append(dst, s...) // nothing is encoded: the URI is its own IRI
	}
	if u.HasScheme() {
		dst = append(dst, u.Scheme()...)
		dst = append(dst, ':')
	}
	if u.HasAuthority() {
		dst = append(dst, "//"...)
		if u.HasUserinfo() {
			dst = appendDecoded(dst, u.Userinfo(), ucsChar, false)
			dst = append(dst, '@')
		}
		switch u.HostKind() {
		case uri.IPv6, uri.IPvFuture:
			dst = append(dst, '[')
			dst = append(dst, u.Host()...)
			dst = append(dst, ']')
		default:
			dst = appendDecoded(dst, u.Host(), ucsChar, false)
		}
		if u.HasPort() {
			dst = append(dst, ':')
			dst = append(dst, u.Port()...)
		}
	}
	dst = appendDecoded(dst, u.Path(), ucsChar, false)
	if u.HasQuery() {
		dst = append(dst, '?')
		dst = appendDecoded(dst, u.Query(), ucsPrivate, false)
	}
	if u.HasFragment() {
		dst = append(dst, '#')
		dst = appendDecoded(dst, u.Fragment(), ucsChar, false)
	}
	return dst
}

// appendDecoded writes the component s (valid URI or IRI text) with the
// percent-encodings that §3.2 decodes decoded; level says which non-ASCII
// characters may stand unencoded there. With upper, the encodings that stay
// get upper-case hex (the case normalization of §5.3.2.1); without, those
// never decoded stay as written.
func appendDecoded(dst []byte, s string, level int, upper bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' || i+2 >= len(s) {
			dst = append(dst, c)
			i++
			continue
		}
		v := unhex(s[i+1])<<4 | unhex(s[i+2])
		switch {
		case v < utf8.RuneSelf && is(v, cUnreserved):
			dst = append(dst, v) // step 2: an unreserved character
			i += 3
			continue
		case v < utf8.RuneSelf:
			// "%", reserved, or an ASCII character no URI holds: not
			// decoded.
			if upper {
				dst = ascii.AppendPct(dst, v)
			} else {
				dst = append(dst, s[i:i+3]...)
			}
			i += 3
			continue
		}
		// Steps 2 and 3: gather the octets of the following triplets
		// (at most four) and see whether they start with a well-formed
		// UTF-8 character.
		var oct [utf8.UTFMax]byte
		k := 0
		for j := i; k < len(oct) && j+2 < len(s) && s[j] == '%'; j += 3 {
			oct[k] = unhex(s[j+1])<<4 | unhex(s[j+2])
			k++
		}
		r, n := utf8.DecodeRune(oct[:k])
		if r == utf8.RuneError && n <= 1 {
			// Step 3: not part of strictly legal UTF-8.
			dst = ascii.AppendPct(dst, v)
			i += 3
			continue
		}
		if allowedRune(r, level) {
			dst = utf8.AppendRune(dst, r) // step 5
		} else {
			// Step 4: a character not appropriate here.
			for _, o := range oct[:n] {
				dst = ascii.AppendPct(dst, o)
			}
		}
		i += 3 * n
	}
	return dst
}
