package batch

import (
	"github.com/urikit/urikit/scheme"
	"github.com/urikit/urikit/uri"
)

func init() {
	register("scheme", opScheme)
	register("inspect", opInspect)
}

// opScheme answers {"op":"scheme","input":S} (PROTOCOL.md, section scheme):
// the URI broken into its scheme's own fields.
func opScheme(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	u, err := uri.Parse(in)
	if err != nil {
		return failSyntax(err)
	}
	name, fields, err := scheme.FieldsOf(u)
	if err != nil {
		return Fail(err.Error())
	}
	return Object{"ok": true, "scheme": name, "fields": fields.Map()}
}

// opInspect answers {"op":"inspect","input":S} (PROTOCOL.md, section
// inspect): the sorted warning codes of RFC 3986 §7's checks.
func opInspect(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	ws, err := scheme.InspectString(in)
	if err != nil {
		return failSyntax(err)
	}
	return Object{"ok": true, "warnings": scheme.Codes(ws)}
}
