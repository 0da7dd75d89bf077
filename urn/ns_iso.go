package urn

import (
	"errors"
	"strings"
)

// iso is the ISO standards namespace (RFC 5141): NSS = std-nss, i.e.
// "std:" originator ":" ...; RFC 5141 §2.9 normalizes the case of all
// elements, so the key is in lower case.
type iso struct{}

func init() { register(iso{}) }

func (iso) NID() string       { return "iso" }
func (iso) Reference() string { return "RFC 5141" }
func (iso) Rule() string      { return "the case of all elements is normalized" }

func (iso) Validate(nss string) error {
	if len(nss) < 5 || !strings.EqualFold(nss[:4], "std:") {
		return errors.New(`an ISO NSS starts with "std:"`)
	}
	orig, _, _ := strings.Cut(nss[4:], ":")
	if !isLDH(orig) {
		return errors.New("missing originator (e.g. iso, iso-iec)")
	}
	return nil
}

func (n iso) Normalize(nss string) (string, error) {
	if err := n.Validate(nss); err != nil {
		return "", err
	}
	return foldNSS(nss), nil
}
