// Package scheme knows what the URLs of particular schemes mean: it breaks
// a uri.URI into the fields that the scheme's own specification defines
// (the 1993 URL draft, RFC 1738 and the RFCs that took its schemes over:
// RFC 4266 gopher, RFC 5538 news and nntp, RFC 4248 telnet, RFC 4156 wais,
// RFC 4157 prospero, RFC 6068 mailto, RFC 8089 file), builds URIs back from
// those fields, keeps a table of its schemes (whether a scheme is
// hierarchical, its RFC; default ports come from package uri, the one
// source of scheme-based normalization's facts), and inspects URIs for the
// security problems of RFC 3986 §7.
//
// Each scheme has a typed struct with a Parse function (ParseHTTP,
// ParseFTP, ParseMailto, ...) and a builder method URI. The Scheme
// interface gives every scheme the same generic face for tools:
//
//	s, _ := scheme.Lookup("ftp")
//	f, err := s.Fields(u) // user, password, host, port, path, typecode
package scheme

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urikit/urikit/uri"
)

// Scheme is what every scheme implementation offers.
type Scheme interface {
	// Name is the scheme name in lower case ("http").
	Name() string
	// Info holds the scheme's registry facts.
	Info() Info
	// Fields breaks u, a URI of this scheme, into the scheme's fields.
	Fields(u uri.URI) (Fields, error)
}

// Opt is an optional text field: Set is false when the field's delimiter
// was absent (RFC 3986 §5.3 tells undefined from empty).
type Opt struct {
	Value string
	Set   bool
}

// Some returns a set Opt holding v.
func Some(v string) Opt { return Opt{Value: v, Set: true} }

// value is the field value of o: the text, or nil when unset.
func (o Opt) value() any {
	if !o.Set {
		return nil
	}
	return o.Value
}

// Field is one named field of a URI. Value is nil (absent), a string, an
// int (a port), a []string or a map[string]string.
type Field struct {
	Name  string
	Value any
}

// Fields is a scheme's fields in the order its specification lists them.
type Fields []Field

// Get returns the value of the named field.
func (f Fields) Get(name string) (any, bool) {
	for _, x := range f {
		if x.Name == name {
			return x.Value, true
		}
	}
	return nil, false
}

// Map returns the fields as a map, the shape of the batch protocol's
// "fields" object.
func (f Fields) Map() map[string]any {
	m := make(map[string]any, len(f))
	for _, x := range f {
		m[x.Name] = x.Value
	}
	return m
}

// MarshalJSON writes the fields as one JSON object, in order.
func (f Fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.Name)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ErrUnknownScheme is wrapped by the errors for a scheme the registry does
// not hold.
var ErrUnknownScheme = errors.New("unknown scheme")

// ErrWrongScheme is wrapped when a typed parser gets a URI of another
// scheme (ParseFTP given an http URI).
var ErrWrongScheme = errors.New("wrong scheme")

// Error says which field of which scheme is wrong and why.
type Error struct {
	Scheme string // the scheme, lower case
	Field  string // the field at fault ("host", "typecode"), or "" for the URI as a whole
	Reason string // what is wrong, for a person
	Err    error  // an underlying error (ErrUnknownScheme, a *uri.Error), or nil
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("scheme ")
	b.WriteString(e.Scheme)
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func errField(sch, field, reason string) error {
	return &Error{Scheme: sch, Field: field, Reason: reason}
}

// FieldsOf looks up u's scheme and breaks u into that scheme's fields; it
// returns the scheme's name in lower case.
func FieldsOf(u uri.URI) (name string, f Fields, err error) {
	name = strings.ToLower(u.Scheme())
	if !u.HasScheme() {
		return "", nil, &Error{Field: "scheme", Reason: "a relative reference has no scheme", Err: ErrUnknownScheme}
	}
	s, ok := Lookup(name)
	if !ok {
		return name, nil, &Error{Scheme: name, Reason: "not a scheme this package knows", Err: ErrUnknownScheme}
	}
	f, err = s.Fields(u)
	return name, f, err
}

// Parse parses s as an absolute URI and breaks it into its scheme's fields.
func Parse(s string) (name string, f Fields, err error) {
	u, err := uri.Parse(s)
	if err != nil {
		return "", nil, err
	}
	return FieldsOf(u)
}

// --- helpers shared by the scheme files ---

// checkScheme reports ErrWrongScheme unless u's scheme is one of names.
func checkScheme(u uri.URI, names ...string) (string, error) {
	got := strings.ToLower(u.Scheme())
	for _, n := range names {
		if got == n {
			return got, nil
		}
	}
	return got, &Error{Scheme: names[0], Reason: fmt.Sprintf("URI has scheme %q", u.Scheme()), Err: ErrWrongScheme}
}

// decode percent-decodes text that uri has already validated.
func decode(s string) string {
	d, err := uri.Unescape(s)
	if err != nil {
		return s
	}
	return d
}

// hostPort returns the decoded host and the port, the scheme's default
// filled in for an absent or empty port. A host is required unless
// allowEmpty.
func hostPort(u uri.URI, sch string, def int, allowEmpty bool) (string, int, error) {
	if !u.HasAuthority() {
		return "", 0, errField(sch, "host", "missing (the URI needs \"//host\")")
	}
	host := u.DecodedHost()
	if host == "" && !allowEmpty {
		return "", 0, errField(sch, "host", "empty")
	}
	port := def
	if u.Port() != "" {
		n, ok := u.PortNumber()
		if !ok {
			return "", 0, errField(sch, "port", strconv.Quote(u.Port())+" is out of range (0-65535)")
		}
		port = n
	}
	return host, port, nil
}

// optUser splits a userinfo into the user and password of RFC 1738 §3.1,
// both decoded.
func optUser(u uri.URI) (user, password Opt) {
	if !u.HasUserinfo() {
		return
	}
	ui := u.Userinfo()
	if i := strings.IndexByte(ui, ':'); i >= 0 {
		return Some(decode(ui[:i])), Some(decode(ui[i+1:]))
	}
	return Some(decode(ui)), Opt{}
}

// pathAndQuery returns the raw path with "?query" appended when there is
// one: for schemes whose paths reserve no characters (gopher, prospero, as
// RFC 1738 defined them) the '?' is data.
func pathAndQuery(u uri.URI) string {
	if u.HasQuery() {
		return u.Path() + "?" + u.Query()
	}
	return u.Path()
}

// buildAuthority writes "//" [userinfo "@"] host [":" port] to b, leaving the
// port out when it is 0 or def.
func buildAuthority(b *strings.Builder, user, password Opt, host string, port, def int) {
	b.WriteString("//")
	if user.Set || password.Set {
		b.WriteString(escapeUser(user.Value))
		if password.Set {
			b.WriteByte(':')
			b.WriteString(uri.Escape(password.Value, uri.ComponentUserinfo))
		}
		b.WriteByte('@')
	}
	b.WriteString(escapeHost(host))
	if port != 0 && port != def {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(port))
	}
}

// escapeUser escapes a user name: like a userinfo, but ':' is data there.
func escapeUser(s string) string {
	return strings.ReplaceAll(uri.Escape(s, uri.ComponentUserinfo), ":", "%3A")
}

// escapeHost writes an IPv6 address in brackets and escapes a reg-name.
func escapeHost(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		if _, err := uri.Parse("x://[" + h + "]"); err == nil {
			return "[" + h + "]"
		}
	}
	return uri.Escape(h, uri.ComponentHost)
}

// checkPort rejects a port a builder cannot write.
func checkPort(sch string, port int) error {
	if port < 0 || port > 65535 {
		return errField(sch, "port", strconv.Itoa(port)+" is out of range (0-65535)")
	}
	return nil
}

// parseBuilt parses the text a builder produced; a failure is a builder bug
// or an input the builder could not escape, reported against the scheme.
func parseBuilt(sch, s string) (uri.URI, error) {
	u, err := uri.Parse(s)
	if err != nil {
		return uri.URI{}, &Error{Scheme: sch, Reason: "built URI does not parse: " + err.Error(), Err: err}
	}
	return u, nil
}
