package urn

import "errors"

// oid is the OID namespace (RFC 3061): number *( "." number ) with no
// leading zeros; equivalence is exact string match.
type oid struct{}

func init() { register(oid{}) }

func (oid) NID() string       { return "oid" }
func (oid) Reference() string { return "RFC 3061" }
func (oid) Rule() string      { return "exact string match" }

func (oid) Validate(nss string) error {
	start := 0
	for i := 0; i <= len(nss); i++ {
		if i < len(nss) && nss[i] >= '0' && nss[i] <= '9' {
			continue
		}
		if i < len(nss) && nss[i] != '.' {
			return errors.New(`an OID holds digits and "." only`)
		}
		switch {
		case i == start:
			return errors.New("empty OID arc")
		case nss[start] == '0' && i-start > 1:
			return errors.New("leading zero in an OID arc")
		}
		start = i + 1
	}
	return nil
}

func (o oid) Normalize(nss string) (string, error) {
	return nss, o.Validate(nss)
}
