package batch

import (
	"errors"
	"fmt"

	"github.com/urikit/urikit/urn"
)

func init() {
	register("urn", opURN)
	register("urn-equal", opURNEqual)
}

// opURN answers {"op":"urn","input":S} (PROTOCOL.md, section urn).
func opURN(r Request) Object {
	in, err := r.String("input")
	if err != nil {
		return Fail(err.Error())
	}
	u, err := urn.Parse(in)
	if err != nil {
		return failSyntax(err)
	}
	rc, hasR := u.RComponent()
	qc, hasQ := u.QComponent()
	fc, hasF := u.FComponent()
	return Object{
		"ok":          true,
		"nid":         u.NID(),
		"nss":         u.NSS(),
		"r_component": Str(rc, hasR),
		"q_component": Str(qc, hasQ),
		"f_component": Str(fc, hasF),
		"canonical":   u.CanonicalString(),
	}
}

// opURNEqual answers {"op":"urn-equal","a":S,"b":S,"level":L}.
func opURNEqual(r Request) Object {
	a, err := r.String("a")
	if err != nil {
		return Fail(err.Error())
	}
	b, err := r.String("b")
	if err != nil {
		return Fail(err.Error())
	}
	lv, err := r.String("level") // required, as in the equal op
	if err != nil {
		return Fail(err.Error())
	}
	level, err := urn.ParseLevel(lv)
	if err != nil {
		return Fail(err.Error())
	}
	ua, err := urn.Parse(a)
	if err != nil {
		return failSide("a", err)
	}
	ub, err := urn.Parse(b)
	if err != nil {
		return failSide("b", err)
	}
	return Object{"ok": true, "result": urn.Compare(ua, ub, level).Equal}
}

// failSide reports which of the two inputs of urn-equal is invalid.
func failSide(side string, err error) Object {
	var e *urn.Error
	if errors.As(err, &e) {
		return Object{"ok": false, "error": fmt.Sprintf("%s: %s at byte %d", side, e.Reason, e.Offset)}
	}
	return Fail(side + ": " + err.Error())
}
