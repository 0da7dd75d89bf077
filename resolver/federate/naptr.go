package federate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// UnescapeCharString undoes the presentation escaping of an RFC 1035
// <character-string> (§5.1): "\DDD" is the byte with decimal value DDD and
// "\X" is X. DNS libraries hand NAPTR fields over in that form — miekg/dns
// turns every '"' and '\' of the wire data into '\"' and '\\', and bytes
// outside printable ASCII into \DDD — while the DDDS algorithm works on the
// bytes that travelled in the message: RFC 3403 §6.1's regexp, entered in a
// zone file as "!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i", is applied as
// "!^urn:cid:.+@([^\.]+\.)(.*)$!\2!i".
func UnescapeCharString(s string) (string, error) {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf(`character-string %s ends in a lone "\"`, strconv.Quote(s))
		}
		if isDigit(s[i+1]) {
			if i+3 >= len(s) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
				return "", fmt.Errorf(`character-string %s: "\" and a digit start \DDD, three digits (at byte %d)`, strconv.Quote(s), i)
			}
			v := int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
			if v > 255 {
				return "", fmt.Errorf(`character-string %s: \%s is over 255 (at byte %d)`, strconv.Quote(s), s[i+1:i+4], i)
			}
			b = append(b, byte(v))
			i += 3
			continue
		}
		b = append(b, s[i+1])
		i++
	}
	return string(b), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Flag kinds of the URI/URN resolution application (RFC 3404 §4.3).
const (
	flagNone    byte = 0   // non-terminal: the output is the next key
	flagS       byte = 'S' // terminal: the output is a domain name with SRV records
	flagA       byte = 'A' // terminal: the output is a host name
	flagU       byte = 'U' // terminal: the output is a URI
	flagP       byte = 'P' // the rest is protocol-specific, outside DDDS
	flagUnknown byte = '?' // a flag this application does not define
	flagBad     byte = '!' // not a flags field
)

// parseFlags reads a NAPTR FLAGS field (unescaped). RFC 3403 §4.1: flags
// are single characters from A-Z and 0-9, case not significant. RFC 3404
// §4.3: S, A, U and P are defined and mutually exclusive; any other letter
// or a digit is a flag this client does not know, and a record with one is
// ignored whatever its order. More than one of S, A, U and P is treated as
// an error and the record ignored, which §4.3 allows.
func parseFlags(f string) byte {
	kind := flagNone
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		switch {
		case c == 'S' || c == 'A' || c == 'U' || c == 'P':
			if kind != flagNone && kind != c {
				return flagBad
			}
			kind = c
		case c >= 'A' && c <= 'Z' || isDigit(c):
			return flagUnknown
		default:
			return flagBad
		}
	}
	return kind
}

// serviceField is a parsed NAPTR SERVICES field of the resolution application
// (RFC 3404 §4.4):
//
//	service_field = [ [protocol] *("+" rs) ]
//	protocol      = ALPHA *31ALPHANUM
//	rs            = ALPHA *31ALPHANUM
type serviceField struct {
	protocol string
	rs       []string
}

func parseServices(f string) (serviceField, error) {
	var s serviceField
	if f == "" {
		return s, nil
	}
	parts := strings.Split(f, "+")
	for i, p := range parts {
		if i == 0 && p == "" {
			continue // no protocol: "+I2L"
		}
		if !isToken(p) {
			return serviceField{}, fmt.Errorf("services field %s: %s is not a letter and up to 31 letters and digits", strconv.Quote(f), strconv.Quote(p))
		}
		if i == 0 {
			s.protocol = p
		} else {
			s.rs = append(s.rs, p)
		}
	}
	return s, nil
}

func isToken(p string) bool {
	if p == "" || len(p) > 32 || !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(p); i++ {
		if !isAlnum(p[i]) {
			return false
		}
	}
	return true
}

// offers reports whether the services include want.
func (s serviceField) offers(want svc) bool {
	for _, r := range s.rs {
		if want.is(r) {
			return true
		}
	}
	return false
}

// thttp reports whether the protocol is THTTP, RFC 3404 §4.4.2's only
// resolution protocol (RFC 2169); case is not significant (RFC 3404 writes
// "thttp", RFC 2169 "THTTP").
func (s serviceField) thttp() bool { return strings.EqualFold(s.protocol, "thttp") }

// acceptable decides RFC 3402 §3.3 step 4 for this application: does a
// rule lead to the requested service over a protocol the directory can
// redirect to? A redirect is an RFC 2169 request, so S and A records must
// name THTTP; a U record gives the URI itself and may leave the protocol
// out. Every terminal record must list the service. A non-terminal record
// may have an empty field (RFC 3404 §4.4: at the start of a delegation
// path nobody knows yet what its end offers); if it names services, the
// requested one must be among them.
func (s serviceField) acceptable(kind byte, want svc) bool {
	switch kind {
	case flagNone:
		if s.protocol == "" && len(s.rs) == 0 {
			return true
		}
		return (s.protocol == "" || s.thttp()) && (len(s.rs) == 0 || s.offers(want))
	case flagS, flagA:
		return s.thttp() && s.offers(want)
	case flagU:
		return (s.protocol == "" || s.thttp()) && s.offers(want)
	}
	return false
}

// rule is one NAPTR record as the DDDS algorithm reads it (RFC 3403 §4.1).
type rule struct {
	rr       *dns.NAPTR // as received, fields in presentation form
	kind     byte       // from parseFlags
	services serviceField
	subst    Subst  // when the REGEXP field is set
	err      error  // why the record cannot be used at all, if it cannot
	next     string // the REPLACEMENT field when REGEXP is empty
}

// newRule reads a NAPTR record. A record that cannot be used keeps the
// reason in err and is skipped by the algorithm, never fatal: one broken
// record must not hide the others.
func newRule(rr *dns.NAPTR) rule {
	r := rule{rr: rr}
	flags, err1 := UnescapeCharString(rr.Flags)
	svcs, err2 := UnescapeCharString(rr.Service)
	re, err3 := UnescapeCharString(rr.Regexp)
	if err := errors.Join(err1, err2, err3); err != nil {
		r.err = err
		return r
	}
	r.kind = parseFlags(flags)
	switch r.kind {
	case flagUnknown:
		r.err = fmt.Errorf("flags %s: a flag RFC 3404 does not define", strconv.Quote(flags))
		return r
	case flagBad:
		r.err = fmt.Errorf("flags %s: not a flags field of RFC 3404 (one of S, A, U, P, or none)", strconv.Quote(flags))
		return r
	}
	var err error
	if r.services, err = parseServices(svcs); err != nil {
		r.err = err
		return r
	}
	// RFC 3403 §4.1: REGEXP and REPLACEMENT are mutually exclusive; a
	// record with both, or with neither, is in error and ignored.
	repl := rr.Replacement
	switch {
	case re != "" && repl != ".":
		r.err = errors.New("both a regexp and a replacement")
	case re == "" && (repl == "." || repl == ""):
		r.err = errors.New("neither a regexp nor a replacement")
	case re != "":
		r.subst, r.err = ParseSubst(re)
	default:
		r.next = repl
	}
	return r
}

// apply is RFC 3402 §3.3 step 3 for one rule: the output of its
// substitution expression on the Application Unique String, or its
// replacement field, which matches every string. err is set when the
// expression matched but its output was refused unbuilt (ErrOutputTooLong).
func (r rule) apply(aus string) (string, bool, error) {
	if r.err != nil {
		return "", false, nil
	}
	if r.next != "" {
		return r.next, true, nil
	}
	return r.subst.Apply(aus)
}

// String shows the record as a zone file would: fields in presentation
// form, as `dig` shows them.
func (r rule) String() string {
	rr := r.rr
	return fmt.Sprintf(`%s NAPTR %d %d "%s" "%s" "%s" %s`, rr.Hdr.Name, rr.Order, rr.Preference, rr.Flags, rr.Service, rr.Regexp, rr.Replacement)
}
