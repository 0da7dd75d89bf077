package scheme

import (
	"errors"
	"strconv"

	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

func init() {
	register(Info{Name: "urn", RFC: "RFC 8141", Title: "Uniform Resource Names"},
		func(u uri.URI) (Fields, error) {
			n, err := ParseURN(u)
			if err != nil {
				return nil, err
			}
			return n.Fields(), nil
		})
}

// URN is the fields of a urn URI; the syntax is package urn's (RFC 8141).
type URN struct {
	NID string // the namespace identifier as written
	NSS string // the namespace-specific string, decoded
	// Name is the URN as package urn parsed it, with its r-, q- and
	// f-components and namespace rules.
	Name urn.URN
}

// ParseURN reads a urn URI through package urn.
func ParseURN(u uri.URI) (URN, error) {
	const sch = "urn"
	if _, err := checkScheme(u, sch); err != nil {
		return URN{}, err
	}
	n, err := urn.Parse(u.String())
	if err != nil {
		// The urn error's reason, not its whole text: Error() would say
		// "urn" and quote the input a second time. The *urn.Error stays
		// reachable through errors.As.
		e := err.(*urn.Error)
		field := ""
		switch {
		case errors.Is(err, urn.ErrInvalidNID):
			field = "nid"
		case errors.Is(err, urn.ErrInvalidNSS), errors.Is(err, urn.ErrInvalidPercentEncoding):
			field = "nss"
		}
		return URN{}, &Error{Scheme: sch, Field: field, Reason: e.Reason + " (byte " + strconv.Itoa(e.Offset) + ")", Err: err}
	}
	return URN{NID: n.NID(), NSS: n.DecodedNSS(), Name: n}, nil
}

// Fields returns nid and nss.
func (n URN) Fields() Fields { return Fields{{"nid", n.NID}, {"nss", n.NSS}} }
