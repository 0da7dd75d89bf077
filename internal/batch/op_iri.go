package batch

import "github.com/urikit/urikit/iri"

func init() {
	register("iri", opIRI)
	register("to-iri", opToIRI)
}

// opIRI answers {"op":"iri","input":S} (PROTOCOL.md, section iri): the
// components of the IRI reference as written, its URI by RFC 3987 §3.1
// ("uri") and the same with an IDNA host ("uri_idna", null when the host
// cannot be converted).
func opIRI(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	x, err := iri.ParseReference(in)
	if err != nil {
		return failSyntax(err)
	}
	return IRIFields(x)
}

// IRIFields is the success response of the iri op.
func IRIFields(x iri.IRI) Object {
	var hostType any
	if x.HasAuthority() {
		hostType = x.HostKind().String()
	}
	var idna any
	if u, err := x.URIWithIDNA(); err == nil {
		idna = u.String()
	}
	return Object{
		"ok":        true,
		"scheme":    Str(x.Scheme(), x.HasScheme()),
		"authority": Str(x.Authority(), x.HasAuthority()),
		"userinfo":  Str(x.Userinfo(), x.HasUserinfo()),
		"host":      Str(x.Host(), x.HasAuthority()),
		"host_type": hostType,
		"port":      Str(x.Port(), x.HasPort()),
		"path":      x.Path(),
		"query":     Str(x.Query(), x.HasQuery()),
		"fragment":  Str(x.Fragment(), x.HasFragment()),
		"uri":       x.URI().String(),
		"uri_idna":  idna,
	}
}

// opToIRI answers {"op":"to-iri","input":S}: the URI reference turned into
// an IRI by RFC 3987 §3.2.
func opToIRI(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	x, err := iri.FromURIString(in)
	if err != nil {
		return failSyntax(err)
	}
	return Object{"ok": true, "result": x.String()}
}
