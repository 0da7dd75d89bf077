package urn

import "errors"

// issn is the ISSN namespace (RFC 3044, kept by RFC 8254): eight characters,
// the last a mod-11 check digit that may be "X", with an optional hyphen
// between the 4th and 5th. Equivalence is RFC 3044 §3.1's, for every NSS,
// valid check digit or not: "hyphens should be dropped prior to comparison
// and occurrences of 'x' normalised to uppercase"; the key is NNNNNNNC.
type issn struct{}

func init() { register(issn{}) }

func (issn) NID() string       { return "issn" }
func (issn) Reference() string { return "RFC 3044" }
func (issn) Rule() string      { return `hyphens ignored, "x" equals "X" (RFC 3044 §3.1)` }

func (issn) Validate(nss string) error {
	_, err := issnDigits(nss)
	return err
}

func (issn) Normalize(nss string) (string, error) { return dropHyphensUpperX(nss), nil }

func issnDigits(nss string) ([]byte, error) {
	if len(nss) == 9 {
		if nss[4] != '-' {
			return nil, errors.New("an ISSN is NNNN-NNNC")
		}
		nss = nss[:4] + nss[5:]
	}
	if len(nss) != 8 {
		return nil, errors.New("an ISSN has 8 characters (NNNN-NNNC)")
	}
	d := []byte(nss)
	sum := 0
	for i, c := range d {
		v := int(c - '0')
		switch {
		case c >= '0' && c <= '9':
		case i == 7 && (c == 'X' || c == 'x'):
			d[i], v = 'X', 10
		default:
			return nil, errors.New("an ISSN holds digits and a final check character (0-9 or X)")
		}
		sum += (8 - i) * v
	}
	if sum%11 != 0 {
		return nil, errors.New("bad ISSN check digit")
	}
	return d, nil
}
