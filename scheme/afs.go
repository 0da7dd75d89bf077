package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "afs", Hierarchical: true, RFC: "1993 URL draft (afsaddress)", Title: "Andrew File System"},
		func(u uri.URI) (Fields, error) {
			a, err := ParseAFS(u)
			if err != nil {
				return nil, err
			}
			return a.Fields(), nil
		})
}

// AFS is an afs URL of the 1993 URL draft:
//
//	afsaddress = a f s : / / cellname / path
//	cellname   = hostname
//
// The draft gives the cell no port and no user.
type AFS struct {
	Cell string // the AFS cell name, decoded
	Path string // decoded, without the "/" that ends the cell name
}

// ParseAFS reads an afs URL.
func ParseAFS(u uri.URI) (AFS, error) {
	const sch = "afs"
	if _, err := checkScheme(u, sch); err != nil {
		return AFS{}, err
	}
	cell, _, err := hostPort(u, sch, 0, false)
	if err != nil {
		return AFS{}, errField(sch, "cell", "missing (afs://cellname/path)")
	}
	if u.HasPort() {
		return AFS{}, errField(sch, "cell", "an AFS cell name takes no port")
	}
	if u.HasQuery() {
		return AFS{}, errField(sch, "query", "not part of an afs URL")
	}
	p := u.Path()
	if !strings.HasPrefix(p, "/") {
		return AFS{}, errField(sch, "path", "missing (afs://cellname/path)")
	}
	return AFS{Cell: cell, Path: decode(p[1:])}, nil
}

// Fields returns cell and path.
func (a AFS) Fields() Fields { return Fields{{"cell", a.Cell}, {"path", a.Path}} }

// URI builds the afs URL.
func (a AFS) URI() (uri.URI, error) {
	const sch = "afs"
	if a.Cell == "" {
		return uri.URI{}, errField(sch, "cell", "empty")
	}
	if strings.IndexByte(a.Cell, ':') >= 0 {
		return uri.URI{}, errField(sch, "cell", "a cell name is a host name")
	}
	return parseBuilt(sch, "afs://"+uri.Escape(a.Cell, uri.ComponentHost)+"/"+uri.Escape(a.Path, uri.ComponentPath))
}
