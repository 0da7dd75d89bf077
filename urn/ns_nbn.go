package urn

import "errors"

// nbn is the National Bibliography Number namespace (RFC 8458 §4.2):
// prefix "-" nbn-string, where the prefix is an ISO 3166 alpha-2 country
// code and optional ":"-separated sub-namespace codes. The prefix is
// case-insensitive (§4.3); the NBN string is not.
type nbn struct{}

func init() { register(nbn{}) }

func (nbn) NID() string       { return "nbn" }
func (nbn) Reference() string { return "RFC 8458" }
func (nbn) Rule() string      { return "prefix (country and sub-namespace codes) case-insensitive" }

// split returns the length of the prefix, checking the syntax.
func (nbn) split(nss string) (int, error) {
	if len(nss) < 2 || class[nss[0]]&cAlnum == 0 || class[nss[1]]&cAlnum == 0 ||
		nss[0] <= '9' || nss[1] <= '9' {
		return 0, errors.New("an NBN starts with a two-letter country code")
	}
	i := 2
	for i < len(nss) && nss[i] == ':' {
		j := i + 1
		for j < len(nss) && class[nss[j]]&cAlnum != 0 {
			j++
		}
		if j == i+1 {
			return 0, errors.New("empty sub-namespace code")
		}
		i = j
	}
	if i == len(nss) || nss[i] != '-' {
		return 0, errors.New(`the NBN prefix ends with "-"`)
	}
	if i+1 == len(nss) || nss[i+1] == '/' {
		return 0, errors.New("empty NBN string")
	}
	return i, nil
}

func (n nbn) Validate(nss string) error {
	_, err := n.split(nss)
	return err
}

func (n nbn) Normalize(nss string) (string, error) {
	p, err := n.split(nss)
	if err != nil {
		return "", err
	}
	return lowerString(nss[:p]) + nss[p:], nil
}
