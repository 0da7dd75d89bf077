package urn

import "errors"

// issn is the ISSN namespace (RFC 3044, kept by RFC 8254): eight characters,
// the last a mod-11 check digit that may be "X". RFC 3044 makes the hyphen
// between the 4th and 5th digit optional and "x" equal to "X"; the key is
// the printed form NNNN-NNNC.
type issn struct{}

func init() { RegisterNamespace(issn{}) }

func (issn) NID() string       { return "issn" }
func (issn) Reference() string { return "RFC 3044" }
func (issn) Rule() string      { return `hyphen optional, check digit "x" equals "X"` }

func (issn) Validate(nss string) error {
	_, err := issnDigits(nss)
	return err
}

func (issn) Normalize(nss string) (string, error) {
	d, err := issnDigits(nss)
	if err != nil {
		return "", err
	}
	return string(d[:4]) + "-" + string(d[4:]), nil
}

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
