package urn

import "errors"

// uuid is the UUID namespace (RFC 9562 §4, formerly RFC 4122 §3): the
// 8-4-4-4-12 hex form, case-insensitive on input; the key is lower case.
type uuid struct{}

func init() { register(uuid{}) }

func (uuid) NID() string       { return "uuid" }
func (uuid) Reference() string { return "RFC 9562" }
func (uuid) Rule() string      { return "hex digits compared case-insensitively" }

func (uuid) Validate(nss string) error {
	if len(nss) != 36 {
		return errors.New("a UUID has 36 characters (8-4-4-4-12 hex digits)")
	}
	for i := 0; i < len(nss); i++ {
		switch i {
		case 8, 13, 18, 23:
			if nss[i] != '-' {
				return errors.New(`a UUID has "-" after hex digit groups 8-4-4-4`)
			}
		default:
			if class[nss[i]]&cHex == 0 {
				return errors.New("a UUID holds hex digits")
			}
		}
	}
	return nil
}

func (u uuid) Normalize(nss string) (string, error) {
	if err := u.Validate(nss); err != nil {
		return "", err
	}
	return lowerString(nss), nil
}
