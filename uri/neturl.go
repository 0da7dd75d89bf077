package uri

import (
	"errors"
	"net/url"
)

// FromURL returns the URI that v stands for: the text of v.String(), parsed
// as a URI-reference (RFC 3986 §4.1). It fails where v holds what a URI
// cannot, for net/url's String writes Opaque and RawQuery as they are
// (with a space or a '\' in them, say), and where v has an IPv6 zone
// identifier, which Parse refuses (RFC 9844; parse v.String() with a
// Parser that allows them). The error is an *Error with an offset into
// v.String().
//
// A *url.URL cannot say that a URI has an empty fragment (a '#' with
// nothing after it), nor an empty authority with nothing after it
// ("http://"): String writes neither. Its ForceQuery says that there is an
// empty query ("?"); without it, an empty RawQuery means no query.
func FromURL(v *url.URL) (URI, error) {
	if v == nil {
		return URI{}, errAt(ErrInvalidText, "", 0, "no URL (a nil *url.URL)")
	}
	return ParseReference(v.String())
}

// ToURL returns what net/url.Parse makes of u's text, so that every field
// reads as net/url reads it (Opaque for a scheme followed by a path without
// a '/', User and Host decoded, Path and RawPath, ForceQuery for an empty
// query, Fragment and RawFragment).
//
// The two disagree here, and FromURL(ToURL(u)) is u but for these:
//
//   - net/url lowercases the scheme ("HTTP:" gives Scheme "http"). A
//     scheme is case-insensitive (§3.1): the URI means the same.
//   - An empty fragment ("x#") is lost, and so is an empty authority with
//     no userinfo, port or path after it ("http://" reads back as "http:").
//   - The userinfo and a percent-encoded host are decoded into User and
//     Host and encoded again by String in net/url's own way: the user
//     name, password and host stay the same, but not always their spelling
//     ("a:b:c@" comes back as "a:b%3Ac@", "%ff" as "%FF").
//
// And net/url refuses some valid URIs, for which ToURL returns an *Error:
// a host holding a percent-encoded byte below 0x80 other than "%25"
// ("%41", which RFC 3986 reads as "A"), and an IPvFuture host ("[v1.x]").
func (u URI) ToURL() (*url.URL, error) {
	if u.kind == IPvFuture {
		return nil, errAt(ErrInvalidHost, u.s, int(u.hostStart)-1, "net/url does not take an IPvFuture host")
	}
	if u.HasAuthority() {
		h := u.Host()
		for i := 0; i < len(h); i++ {
			if h[i] == '%' && i+2 < len(h) && h[i+1] < '8' && (h[i+1] != '2' || h[i+2] != '5') {
				return nil, errAt(ErrInvalidHost, u.s, int(u.hostStart)+i, "net/url does not take a percent-encoded ASCII character in a host (decode it)")
			}
		}
	}
	v, err := url.Parse(u.s)
	if err != nil {
		// Not seen with any valid URI: the checks above cover what
		// net/url is known to refuse.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errAt(ErrInvalidText, u.s, 0, "net/url does not take it: "+err.Error())
	}
	return v, nil
}
