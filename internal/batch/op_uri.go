package batch

import (
	"errors"

	"github.com/urikit/urikit/iri"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

func init() {
	register("parse", opParse)
	register("resolve", opResolve)
	register("normalize", opNormalize)
	register("equal", opEqual)
}

// failSyntax answers with the reason and, for a URI, URN or IRI syntax
// error, its byte offset.
func failSyntax(err error) Object {
	var ue *uri.Error
	if errors.As(err, &ue) {
		return FailAt(ue.Reason, ue.Offset)
	}
	var ne *urn.Error
	if errors.As(err, &ne) {
		return FailAt(ne.Reason, ne.Offset)
	}
	var ie *iri.Error
	if errors.As(err, &ie) {
		return FailAt(ie.Reason, ie.Offset)
	}
	return Fail(err.Error())
}

func opParse(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	u, err := uri.ParseReference(in)
	if err != nil {
		return failSyntax(err)
	}
	return ParseFields(u)
}

// ParseFields is the success response of the parse op.
func ParseFields(u uri.URI) Object {
	var hostType any
	if u.HasAuthority() {
		hostType = u.HostKind().String()
	}
	return Object{
		"ok":        true,
		"scheme":    Str(u.Scheme(), u.HasScheme()),
		"authority": Str(u.Authority(), u.HasAuthority()),
		"userinfo":  Str(u.Userinfo(), u.HasUserinfo()),
		"host":      Str(u.Host(), u.HasAuthority()),
		"host_type": hostType,
		"port":      Str(u.Port(), u.HasPort()),
		"path":      u.Path(),
		"query":     Str(u.Query(), u.HasQuery()),
		"fragment":  Str(u.Fragment(), u.HasFragment()),
	}
}

func opResolve(r Request) Object {
	base, err := r.String("base")
	if err != nil {
		return Fail(err.Error())
	}
	ref, err := r.String("ref")
	if err != nil {
		return Fail(err.Error())
	}
	b, err := uri.Parse(base)
	if err != nil {
		return Fail("base: " + err.Error())
	}
	rr, err := uri.ParseReference(ref)
	if err != nil {
		return Fail("ref: " + err.Error())
	}
	res, err := b.Resolve(rr)
	if err != nil {
		return Fail(err.Error())
	}
	return Object{"ok": true, "result": res.String()}
}

// level reads the request's "level" field. PROTOCOL.md lists it in every
// normalize and equal request and says a line lacking a field is answered
// with an error, so there is no default. Normalization has no "simple"
// level: simple comparison is the absence of normalization.
func level(r Request, allowSimple bool) (uri.Level, error) {
	name, err := r.String("level")
	if err != nil {
		return 0, err
	}
	l, ok := uri.ParseLevel(name)
	if !ok || (l == uri.Simple && !allowSimple) {
		want := "syntax or scheme"
		if allowSimple {
			want = "simple, syntax or scheme"
		}
		return 0, errors.New(`unknown level "` + name + `" (want ` + want + `)`)
	}
	return l, nil
}

// protocolSchemes is the table of PROTOCOL.md's scheme level: default
// ports and the empty path of http, https, ws, wss and ftp. Package uri
// knows one more fact, file's default host (RFC 8089 §2: localhost), which
// the protocol's scheme level does not list; where the protocol fixes a
// narrower answer, the protocol wins for urikit batch.
var protocolSchemes = func() uri.Schemes {
	t := uri.BuiltinSchemes()
	for name, info := range t {
		info.DefaultHost = ""
		if info == (uri.SchemeInfo{}) {
			delete(t, name)
			continue
		}
		t[name] = info
	}
	return t
}()

func opNormalize(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	lv, err := level(r, false)
	if err != nil {
		return Fail(err.Error())
	}
	u, err := uri.ParseReference(in)
	if err != nil {
		return failSyntax(err)
	}
	return Object{"ok": true, "result": uri.Normalizer{Level: lv, Schemes: protocolSchemes}.Normalize(u).String()}
}

func opEqual(r Request) Object {
	a, err := r.String("a")
	if err != nil {
		return Fail(err.Error())
	}
	b, err := r.String("b")
	if err != nil {
		return Fail(err.Error())
	}
	lv, err := level(r, true)
	if err != nil {
		return Fail(err.Error())
	}
	ua, err := uri.ParseReference(a)
	if err != nil {
		return failSyntax(err)
	}
	ub, err := uri.ParseReference(b)
	if err != nil {
		return failSyntax(err)
	}
	return Object{"ok": true, "result": uri.Normalizer{Level: lv, Schemes: protocolSchemes}.Equal(ua, ub)}
}
