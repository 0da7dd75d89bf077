package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	for _, i := range []Info{
		{Name: "http", Hierarchical: true, RFC: "RFC 9110 §4.2.1", Title: "Hypertext Transfer Protocol"},
		{Name: "https", Hierarchical: true, RFC: "RFC 9110 §4.2.2", Title: "HTTP over TLS"},
		{Name: "ws", Hierarchical: true, RFC: "RFC 6455 §3", Title: "WebSocket"},
		{Name: "wss", Hierarchical: true, RFC: "RFC 6455 §3", Title: "WebSocket over TLS"},
	} {
		register(i, func(u uri.URI) (Fields, error) {
			h, err := ParseHTTP(u)
			if err != nil {
				return nil, err
			}
			return h.Fields(), nil
		})
	}
}

// HTTP is an http, https, ws or wss URI (RFC 9110 §4.2, RFC 6455 §3).
type HTTP struct {
	Scheme string // "http", "https", "ws" or "wss"
	Host   string // decoded; an IP literal without brackets
	Port   int    // the default port when the URI names none
	Path   string // decoded
	Query  Opt    // decoded; '+' stays '+'
}

// ParseHTTP reads an http, https, ws or wss URI. The host is required: RFC
// 9110 §4.2.1 has a recipient reject an http URI with an empty host. A
// userinfo is ignored (RFC 9110 §4.2.4 deprecates it).
func ParseHTTP(u uri.URI) (HTTP, error) {
	sch, err := checkScheme(u, "http", "https", "ws", "wss")
	if err != nil {
		return HTTP{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return HTTP{}, err
	}
	h := HTTP{Scheme: sch, Host: host, Port: port, Path: u.DecodedPath()}
	if u.HasQuery() {
		h.Query = Some(u.DecodedQuery())
	}
	return h, nil
}

// Fields returns host, port, path and query.
func (h HTTP) Fields() Fields {
	return Fields{{"host", h.Host}, {"port", h.Port}, {"path", h.Path}, {"query", h.Query.value()}}
}

// URI builds the URI; Scheme defaults to "http", a Port of 0 or the
// default is left out, a Path must be empty or start with "/".
func (h HTTP) URI() (uri.URI, error) {
	sch := strings.ToLower(h.Scheme)
	if sch == "" {
		sch = "http"
	}
	if _, ok := map[string]bool{"http": true, "https": true, "ws": true, "wss": true}[sch]; !ok {
		return uri.URI{}, &Error{Scheme: "http", Reason: "cannot build scheme " + sch, Err: ErrWrongScheme}
	}
	if h.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if err := checkPort(sch, h.Port); err != nil {
		return uri.URI{}, err
	}
	if h.Path != "" && h.Path[0] != '/' {
		return uri.URI{}, errField(sch, "path", "must be empty or start with \"/\"")
	}
	var b strings.Builder
	b.WriteString(sch)
	b.WriteByte(':')
	buildAuthority(&b, Opt{}, Opt{}, h.Host, h.Port, DefaultPort(sch))
	b.WriteString(uri.Escape(h.Path, uri.ComponentPath))
	if h.Query.Set {
		b.WriteByte('?')
		b.WriteString(uri.Escape(h.Query.Value, uri.ComponentQuery))
	}
	return parseBuilt(sch, b.String())
}
