package urn

import (
	"errors"
	"strings"

	"github.com/urikit/urikit/internal/ascii"
)

// ietf is the IETF documents namespace (RFC 2648 §2): rfc:, fyi:, std:,
// bcp: followed by a number, id: and mtg: followed by an LDH string, and
// params: (registered protocol parameters, RFC 3553). "The entire URN is
// case-insensitive", so the key is in lower case.
type ietf struct{}

func init() { register(ietf{}) }

func (ietf) NID() string       { return "ietf" }
func (ietf) Reference() string { return "RFC 2648" }
func (ietf) Rule() string      { return "the entire URN is case-insensitive" }

func (ietf) Validate(nss string) error {
	prefix, rest, ok := strings.Cut(nss, ":")
	switch strings.ToLower(prefix) {
	case "rfc", "fyi", "std", "bcp":
		if !ok || rest == "" || !allDigits(rest) {
			return errors.New(prefix + ": takes a number")
		}
	case "id", "mtg":
		if !ok || rest == "" || !isLDH(rest) {
			return errors.New(prefix + ": takes letters, digits and hyphens")
		}
	case "params":
		// RFC 3553: params:<registry>:<...>, colon-separated.
		if !ok || rest == "" {
			return errors.New("params: takes a registered parameter name")
		}
	default:
		// other-nss: a future series, 1*(DIGIT / ALPHA / "-").
		if ok || !isLDH(nss) {
			return errors.New("unknown sub-namespace (want rfc, fyi, std, bcp, id, mtg or params)")
		}
	}
	return nil
}

func (n ietf) Normalize(nss string) (string, error) {
	if err := n.Validate(nss); err != nil {
		return "", err
	}
	return foldNSS(nss), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isLDH(s string) bool {
	for i := 0; i < len(s); i++ {
		if class[s[i]]&cLDH == 0 {
			return false
		}
	}
	return s != ""
}

// foldNSS lower-cases an NSS but keeps the hex digits of its
// percent-encodings in upper case (RFC 8141 §3.1 form).
func foldNSS(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b = append(b, '%', ascii.ToUpper(s[i+1]), ascii.ToUpper(s[i+2]))
			i += 2
			continue
		}
		b = append(b, ascii.ToLower(s[i]))
	}
	return string(b)
}
