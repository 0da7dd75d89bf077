package iri

import (
	"errors"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// whatwg is golang.org/x/net/idna set to the options of the WHATWG URL
// Standard's "domain to ASCII" with beStrict false: UTS #46 ToASCII with
// CheckHyphens false, CheckBidi true, CheckJoiners true, UseSTD3ASCIIRules
// false, Transitional_Processing false, VerifyDnsLength false.
//
// MapForLookup must come first: it turns on UseSTD3ASCIIRules and the
// hyphen checks, which the options after it turn off again.
var whatwg = idna.New(
	idna.MapForLookup(),
	idna.StrictDomainName(false), // UseSTD3ASCIIRules=false
	idna.CheckHyphens(false),
	idna.BidiRule(), // CheckBidi=true: RFC 5893 on every label of a Bidi domain name
	idna.CheckJoiners(true),
	idna.Transitional(false),
	idna.VerifyDNSLength(false),
	idna.RemoveLeadingDots(false),
)

// mapper applies the UTS #46 mapping alone (no validation that could stop
// it), to see the labels that ToASCII saw.
var mapper = idna.New(
	idna.MapForLookup(),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(false),
	idna.Transitional(false),
	idna.VerifyDNSLength(false),
)

// IDNAError is the error of DomainToASCII.
type IDNAError struct {
	Domain string // the domain given
	Reason string
}

func (e *IDNAError) Error() string {
	return "iri: cannot convert the host " + quote(e.Domain) + " to ASCII: " + e.Reason
}

// ErrIDNA is the Kind of every IDNAError (errors.Is(err, iri.ErrIDNA)).
var ErrIDNA = errors.New("host is not a valid internationalized domain name")

// Is makes errors.Is(err, ErrIDNA) true for an *IDNAError.
func (e *IDNAError) Is(target error) bool { return target == ErrIDNA }

func quote(s string) string { return `"` + s + `"` }

// DomainToASCII converts a domain name to ASCII as the WHATWG URL Standard's
// "domain to ASCII" does with beStrict false: UTS #46 ToASCII with the
// options of the whatwg profile above, then the standard's own failure
// steps (an empty result, a forbidden domain code point in the result).
// The IPv4 parsing that the URL Standard's host parser does afterwards is
// not applied ("０x7f．１" gives "0x7f.1").
//
// golang.org/x/net/idna implements UTS #46, but it differs from the
// standard in places, which this function corrects:
//
//   - A label "xn--" with nothing after the prefix decodes to an empty
//     label without an error; UTS #46 (§4 step 4, since revision 31) records
//     an error for a Punycode label that decodes to nothing.
//   - With CheckHyphens false, UTS #46 (§4.1 criterion 2, revision 31)
//     still refuses a label that begins with "xn--" after decoding;
//     x/net/idna ties that check to CheckHyphens.
//   - It returns a result alongside an error; here an error means failure.
//   - An input that maps to nothing (only ignored code points, such as
//     U+00AD) gives "" without an error; the URL Standard fails it.
//   - UseSTD3ASCIIRules false lets through ASCII that the URL Standard then
//     refuses as forbidden domain code points ("#", "%", "/", ":", "?",
//     "@", "[", "\\", "]", "^", "|", controls, space, DEL): such a result
//     fails, as in the standard.
//
// One more check is this package's, not the standard's: the result must be
// a reg-name of RFC 3986 (a URI cannot carry '"', '`', '{' or '}' in a
// host, which the URL Standard would let through).
//
// Unicode versions differ: x/net/idna's tables are those of the Unicode
// version of the Go release (15.0 for Go 1.26); code points assigned later
// are refused here and may be accepted by a browser.
func DomainToASCII(domain string) (string, error) {
	if !utf8.ValidString(domain) {
		// The URL Standard decodes the percent-decoded host as UTF-8
		// without failure, replacing bad bytes with U+FFFD, which UTS #46
		// disallows: the conversion fails either way.
		return "", &IDNAError{domain, "its percent-decoded bytes are not UTF-8"}
	}
	out, err := whatwg.ToASCII(domain)
	if err != nil {
		return "", &IDNAError{domain, strings.TrimPrefix(err.Error(), "idna: ")}
	}
	if out == "" {
		return "", &IDNAError{domain, "it maps to the empty string"}
	}
	if err := checkACELabels(domain); err != nil {
		return "", err
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if forbiddenDomain(c) {
			return "", &IDNAError{domain, "the result holds the forbidden code point " + quoteByte(c)}
		}
		if !is(c, cRegName) && c != '.' {
			return "", &IDNAError{domain, "the result holds " + quoteByte(c) + ", which a URI host cannot hold"}
		}
	}
	return out, nil
}

// checkACELabels applies the two checks of UTS #46 on "xn--" labels that
// x/net/idna leaves out (see DomainToASCII), to the labels of the mapped
// domain.
func checkACELabels(domain string) error {
	mapped := mapDomain(domain)
	for label := range strings.SplitSeq(mapped, ".") {
		if !strings.HasPrefix(label, "xn--") {
			continue
		}
		if label == "xn--" {
			return &IDNAError{domain, `the label "xn--" decodes to nothing (UTS #46 §4 step 4)`}
		}
		u, err := idna.Punycode.ToUnicode(label)
		if err == nil && strings.HasPrefix(u, "xn--") {
			return &IDNAError{domain, "the label " + quote(label) + " decodes to a label that begins with \"xn--\" (UTS #46 §4.1)"}
		}
	}
	return nil
}

// mapDomain is the mapping step of UTS #46 (§4 steps 1 and 2): each code
// point mapped by the IDNA mapping table, then NFC. It maps code point by
// code point (the table is per code point) so that "xn--" labels stay as
// they are, which the x/net/idna profiles would decode.
func mapDomain(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		m, _ := mapper.ToUnicode(string(r)) // the mapping, whatever the validity
		b.WriteString(m)
	}
	return norm.NFC.String(b.String())
}

// forbiddenDomain reports whether c is an ASCII forbidden domain code
// point of the URL Standard: a forbidden host code point (NUL, TAB, LF,
// CR, space, # / : < > ? @ [ \ ] ^ |), a C0 control, '%' or DEL.
func forbiddenDomain(c byte) bool {
	return c <= 0x20 || c == 0x7f || strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0
}

func quoteByte(c byte) string {
	if c < 0x20 || c == 0x7f {
		return "0x" + string(upperHex[c>>4]) + string(upperHex[c&15])
	}
	return "'" + string(c) + "'"
}

// DomainToUnicode is the UTS #46 ToUnicode of the same options: the
// domain mapped (lower case, NFC, full-width forms folded) and its "xn--"
// labels decoded. ok is false when the domain is not a valid IDN; the
// result is then meaningless.
func DomainToUnicode(domain string) (string, bool) {
	if _, err := DomainToASCII(domain); err != nil {
		return "", false
	}
	u, err := whatwg.ToUnicode(domain)
	return u, err == nil
}
