package batch

import "github.com/urikit/urikit/extract"

func init() {
	register("extract", opExtract)
}

// opExtract answers {"op":"extract","text":S} with the URIs found in the
// text, in order of appearance, wrappers removed; with "iri":true, the IRIs.
func opExtract(r Request) Object {
	text, err := r.String("text")
	if err != nil {
		return Fail(err.Error())
	}
	iri, err := r.OptionalBool("iri")
	if err != nil {
		return Fail(err.Error())
	}
	return Object{"ok": true, "result": extract.StringsWith(text, extract.Options{IRI: iri})}
}
