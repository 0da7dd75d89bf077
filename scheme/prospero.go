package scheme

import (
	"strings"

	"github.com/urikit/urikit/uri"
)

func init() {
	register(Info{Name: "prospero", RFC: "RFC 4157", Title: "Prospero directory service"},
		func(u uri.URI) (Fields, error) {
			p, err := ParseProspero(u)
			if err != nil {
				return nil, err
			}
			return p.Fields(), nil
		})
}

// Param is one ";field=value" pair of a prospero URL.
type Param struct{ Name, Value string }

// Prospero is a prospero URL (RFC 4157 §2):
//
//	prospero://<host>:<port>/<hsoname>;<field>=<value>
//
// The 1993 draft wrote a version and attributes after the hsoname,
// separated by "%00" (hsoname%00version%00attr...); they are read into
// Version and Attributes.
type Prospero struct {
	Host string
	Port int
	// HSOName is the decoded host-specific object name; a "/" in it has no
	// meaning to the client (RFC 4157 §2: prospero://host//pros/name has
	// the hsoname "/pros/name").
	HSOName string
	// Params are the ";field=value" pairs in order, decoded.
	Params []Param
	// Version and Attributes are the 1993 draft's "%00" fields.
	Version    Opt
	Attributes []string
}

// Param returns the value of the first parameter named name.
func (p Prospero) Param(name string) (string, bool) {
	for _, x := range p.Params {
		if x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// ParseProspero reads a prospero URL. As in RFC 1738 §5, '?' is data in the
// hsoname and the fields, so a query is read back into them.
func ParseProspero(u uri.URI) (Prospero, error) {
	const sch = "prospero"
	if _, err := checkScheme(u, sch); err != nil {
		return Prospero{}, err
	}
	host, port, err := hostPort(u, sch, DefaultPort(sch), false)
	if err != nil {
		return Prospero{}, err
	}
	raw := pathAndQuery(u)
	if !strings.HasPrefix(raw, "/") {
		return Prospero{}, errField(sch, "hsoname", "missing (prospero://host/hsoname)")
	}
	raw = raw[1:]
	// RFC 4157 §2: ";" is reserved and may not appear unquoted in the hsoname.
	specs := strings.Split(raw, ";")
	p := Prospero{Host: host, Port: port}
	name := specs[0]
	if i := strings.Index(strings.ToLower(name), "%00"); i >= 0 {
		// The 1993 draft: hsoname %00 version [ %00 attribute ... ].
		rest := strings.Split(name[i+3:], "%00")
		name = name[:i]
		p.Version = Some(decode(rest[0]))
		for _, a := range rest[1:] {
			p.Attributes = append(p.Attributes, decode(a))
		}
	}
	p.HSOName = decode(name)
	for _, f := range specs[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Prospero{}, errField(sch, "params", "\""+decode(f)+"\" has no \"=\" (fieldspec = \";\" fieldname \"=\" fieldvalue)")
		}
		// RFC 4157 §2: "=" separates a field's name from its value and
		// ";" one field from the next, so both are escaped inside them
		// (as %3D and %3B): a second raw "=" says the field is broken.
		if strings.IndexByte(v, '=') >= 0 {
			return Prospero{}, errField(sch, "params", "the field \""+decode(k)+"\" holds a second unencoded \"=\" (RFC 4157 §2: write %3D)")
		}
		p.Params = append(p.Params, Param{decode(k), decode(v)})
	}
	return p, nil
}

// Fields returns host, port, hsoname and params (an object; the first of
// two fields of the same name wins).
func (p Prospero) Fields() Fields {
	m := make(map[string]string, len(p.Params))
	for _, x := range p.Params {
		if _, dup := m[x.Name]; !dup {
			m[x.Name] = x.Value
		}
	}
	return Fields{{"host", p.Host}, {"port", p.Port}, {"hsoname", p.HSOName}, {"params", m}}
}

// URI builds the prospero URL (with the "%00" fields when Version is set).
func (p Prospero) URI() (uri.URI, error) {
	const sch = "prospero"
	if p.Host == "" {
		return uri.URI{}, errField(sch, "host", "empty")
	}
	if err := checkPort(sch, p.Port); err != nil {
		return uri.URI{}, err
	}
	if len(p.Attributes) > 0 && !p.Version.Set {
		return uri.URI{}, errField(sch, "version", "attributes need a version, even an empty one")
	}
	for _, t := range append([]string{p.HSOName, p.Version.Value}, p.Attributes...) {
		if strings.IndexByte(t, 0) >= 0 {
			return uri.URI{}, errField(sch, "hsoname", "a NUL byte would read as the 1993 \"%00\" separator")
		}
	}
	esc := func(s string) string {
		// ';' and '=' delimit fields; NUL separates the 1993 fields.
		s = uri.Escape(s, uri.ComponentPath)
		return strings.NewReplacer(";", "%3B", "=", "%3D").Replace(s)
	}
	var b strings.Builder
	b.WriteString("prospero:")
	buildAuthority(&b, Opt{}, Opt{}, p.Host, p.Port, DefaultPort(sch))
	b.WriteByte('/')
	b.WriteString(esc(p.HSOName))
	if p.Version.Set {
		b.WriteString("%00")
		b.WriteString(esc(p.Version.Value))
		for _, a := range p.Attributes {
			b.WriteString("%00")
			b.WriteString(esc(a))
		}
	}
	for _, x := range p.Params {
		if x.Name == "" {
			return uri.URI{}, errField(sch, "params", "empty field name")
		}
		b.WriteByte(';')
		b.WriteString(esc(x.Name))
		b.WriteByte('=')
		b.WriteString(esc(x.Value))
	}
	return parseBuilt(sch, b.String())
}
