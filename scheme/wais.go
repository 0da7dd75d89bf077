package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "wais", RFC: "RFC 4156", Title: "Wide Area Information Servers"},
		func(u uri.URI) (Fields, error) {
			w, err := ParseWAIS(u)
			if err != nil {
				return nil, err
			}
			return w.Fields(), nil
		})
}

// WAIS is a wais URL (RFC 4156 §2), one of
//
//	wais://<host>:<port>/<database>
//	wais://<host>:<port>/<database>?<search>
//	wais://<host>:<port>/<database>/<wtype>/<wpath>
//
// The 1993 draft's document form, database/wtype/length/path, is read as
// the third form with "length/path" as the wpath.
type WAIS struct {
	Host     string
	Port     int
	Database string // decoded
	// WType and WPath are set for a document (the third form); WPath is
	// the opaque document-id.
	WType, WPath Opt
	// Search is set for a search (the second form).
	Search Opt
}

// ParseWAIS reads a wais URL.
func ParseWAIS(u uri.URI) (WAIS, error) {
	const sch = "wais"
	if _, err := checkScheme(u, sch); err != nil {
		return WAIS{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return WAIS{}, err
	}
	p := u.Path()
	if !strings.HasPrefix(p, "/") {
		return WAIS{}, errField(sch, "database", "missing (wais://host/database)")
	}
	w := WAIS{Host: host, Port: port}
	parts := strings.SplitN(p[1:], "/", 3)
	w.Database = decode(parts[0])
	switch len(parts) {
	case 2:
		return WAIS{}, errField(sch, "wpath", "a document URL needs database/wtype/wpath (RFC 4156 §2)")
	case 3:
		w.WType, w.WPath = Some(decode(parts[1])), Some(decode(parts[2]))
	}
	if u.HasQuery() {
		if w.WType.Set {
			return WAIS{}, errField(sch, "search", "a document URL takes no search (RFC 4156 §2)")
		}
		w.Search = Some(decode(u.Query()))
	}
	return w, nil
}

// Fields returns host, port, database, wtype, wpath and search.
func (w WAIS) Fields() Fields {
	return Fields{{"host", w.Host}, {"port", w.Port}, {"database", w.Database},
		{"wtype", w.WType.value()}, {"wpath", w.WPath.value()}, {"search", w.Search.value()}}
}

// URI builds the wais URL.
func (w WAIS) URI() (uri.URI, error) {
	const sch = "wais"
	if w.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if err := checkPort(sch, w.Port); err != nil {
		return uri.URI{}, err
	}
	if w.WType.Set != w.WPath.Set {
		return uri.URI{}, errField(sch, "wpath", "wtype and wpath go together")
	}
	if w.WType.Set && w.Search.Set {
		return uri.URI{}, errField(sch, "search", "a document URL takes no search")
	}
	var b strings.Builder
	b.WriteString("wais:")
	buildAuthority(&b, Opt{}, Opt{}, w.Host, w.Port, DefaultPort(sch))
	b.WriteByte('/')
	b.WriteString(uri.Escape(w.Database, uri.ComponentPathSegment))
	if w.WType.Set {
		b.WriteByte('/')
		b.WriteString(uri.Escape(w.WType.Value, uri.ComponentPathSegment))
		b.WriteByte('/')
		b.WriteString(uri.Escape(w.WPath.Value, uri.ComponentPath))
	}
	if w.Search.Set {
		b.WriteByte('?')
		b.WriteString(uri.Escape(w.Search.Value, uri.ComponentQuery))
	}
	return parseBuilt(sch, b.String())
}
