package federate

import (
	"strings"

	"github.com/urikit/urikit/resolver"
)

// svc is a resolution service that takes one name and can be handed on.
type svc struct {
	i string // the RFC 2483 mnemonic, in the spelling of its section heading
	n string // the RFC 2169 (THTTP) name when RFC 2169 defines one, else ""
}

// delegable lists the services a name can be delegated for: RFC 2483 §4's
// services of one URI, paired with the RFC 2169 §3 services of the same
// meaning. RFC 2169 has no N2Cs and no N2N, so I2Cs and I2N keep their RFC
// 2483 names. I=I (RFC 2483 §4.9) compares two URIs and L2Ns, L2Ls and L2C
// (RFC 2169 §3.7–3.9) take a URL, not a name: none of them is delegated.
var delegable = [...]svc{
	{"I2L", "N2L"},
	{"I2Ls", "N2Ls"},
	{"I2R", "N2R"},
	{"I2Rs", "N2Rs"},
	{"I2C", "N2C"},
	{"I2Cs", ""},
	{"I2N", ""},
	{"I2Ns", "N2Ns"},
}

// thttp is the service's name in a request to an RFC 2169 resolver.
func (s svc) thttp() string {
	if s.n != "" {
		return s.n
	}
	return s.i
}

// is reports whether name (from a NAPTR services field) names s. Case is
// not significant: RFC 2483 itself writes the same mnemonic as "I2Ls" in
// a heading and "I2LS" in the template below it.
func (s svc) is(name string) bool {
	return strings.EqualFold(name, s.i) || s.n != "" && strings.EqualFold(name, s.n)
}

// CheckService reports whether name is a resolution service that rules
// hand on (ByRules' service), and if not, why.
func CheckService(name string) error {
	_, err := lookupService(name)
	return err
}

// lookupService finds the service named name, by either of its names,
// ignoring case.
func lookupService(name string) (svc, error) {
	for _, s := range delegable {
		if s.is(name) {
			return s, nil
		}
	}
	switch strings.ToUpper(name) {
	case "I=I":
		return svc{}, invalidService(name, "I=I compares two URIs; it is not handed on for one name")
	case "L2NS", "L2LS", "L2C":
		return svc{}, invalidService(name, name+" takes a URL, not a name; it is not handed on")
	}
	return svc{}, invalidService(name, "not a resolution service of RFC 2169 or RFC 2483 that takes one name (I2L, I2Ls, I2R, I2Rs, I2C, I2Cs, I2N, I2Ns or their N2x names)")
}

func invalidService(name, why string) error {
	return &resolver.Error{Kind: resolver.KindInvalid, Field: "service", Offset: -1, Message: quote(name) + ": " + why}
}

// THTTPService returns the name under which a request for service goes to
// an RFC 2169 resolver's /uri-res/ (I2L goes as N2L; I2Cs and I2N, which
// RFC 2169 lacks, keep their RFC 2483 names), or a KindInvalid error for a
// service that does not take one name.
func THTTPService(service string) (string, error) {
	s, err := lookupService(service)
	if err != nil {
		return "", err
	}
	return s.thttp(), nil
}
