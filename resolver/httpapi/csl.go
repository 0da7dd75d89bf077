package httpapi

// A record as a CSL item: what a citation tool asks a resolver for (DOI's
// content negotiation, RESOLVERS.md: Accept:
// application/vnd.citationstyles.csl+json). The item is one object of the
// CSL-JSON data schema, csl-data.json of CSL 1.0.2
// (https://resource.citationstyles.org/schema/v1.0/input/json/csl-data.json,
// in github.com/citation-style-language/schema, schemas/input/). The
// schema allows no member it does not list (additionalProperties: false)
// and gives each its shape, so a metadata member goes into the item only
// when the schema lists it and its value has that shape: a citation
// processor given a wrong shape may stop on it (a name as a string, a
// date as a number), and one that is left out costs only that field.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urikit/urikit/resolver"
)

// cslShape is the JSON shape the schema gives a variable.
type cslShape uint8

const (
	cslString      cslShape = iota // "type": "string"
	cslStringOrNum                 // "type": ["string", "number"]
	cslNames                       // an array of name-variable objects
	cslDate                        // a date-variable object (or a date string, converted)
	cslStrings                     // an array of strings (categories)
	cslObject                      // any object (custom)
)

// cslVariables are the item's members besides id and type, in the order
// the item lists them: the properties of csl-data.json (CSL 1.0.2, the
// v1.0 schema) by shape, written out here by hand.
var cslVariables = []struct {
	name  string
	shape cslShape
}{
	// Name variables.
	{"author", cslNames}, {"chair", cslNames}, {"collection-editor", cslNames}, {"compiler", cslNames},
	{"composer", cslNames}, {"container-author", cslNames}, {"contributor", cslNames}, {"curator", cslNames},
	{"director", cslNames}, {"editor", cslNames}, {"editorial-director", cslNames}, {"executive-producer", cslNames},
	{"guest", cslNames}, {"host", cslNames}, {"interviewer", cslNames}, {"illustrator", cslNames},
	{"narrator", cslNames}, {"organizer", cslNames}, {"original-author", cslNames}, {"performer", cslNames},
	{"producer", cslNames}, {"recipient", cslNames}, {"reviewed-author", cslNames}, {"script-writer", cslNames},
	{"series-creator", cslNames}, {"translator", cslNames},
	// Date variables.
	{"accessed", cslDate}, {"available-date", cslDate}, {"event-date", cslDate}, {"issued", cslDate},
	{"original-date", cslDate}, {"submitted", cslDate},
	// String variables (URL is the record's first location when it has one).
	{"citation-key", cslString}, {"language", cslString}, {"journalAbbreviation", cslString}, {"shortTitle", cslString},
	{"abstract", cslString}, {"annote", cslString}, {"archive", cslString}, {"archive_collection", cslString},
	{"archive_location", cslString}, {"archive-place", cslString}, {"authority", cslString}, {"call-number", cslString},
	{"citation-label", cslString}, {"collection-title", cslString}, {"container-title", cslString},
	{"container-title-short", cslString}, {"dimensions", cslString}, {"division", cslString}, {"DOI", cslString},
	{"event", cslString}, {"event-title", cslString}, {"event-place", cslString}, {"genre", cslString},
	{"ISBN", cslString}, {"ISSN", cslString}, {"jurisdiction", cslString}, {"keyword", cslString},
	{"medium", cslString}, {"note", cslString}, {"original-publisher", cslString},
	{"original-publisher-place", cslString}, {"original-title", cslString}, {"part-title", cslString},
	{"PMCID", cslString}, {"PMID", cslString}, {"publisher", cslString}, {"publisher-place", cslString},
	{"references", cslString}, {"reviewed-genre", cslString}, {"reviewed-title", cslString}, {"scale", cslString},
	{"section", cslString}, {"source", cslString}, {"status", cslString}, {"title", cslString},
	{"title-short", cslString}, {"URL", cslString}, {"version", cslString}, {"volume-title", cslString},
	{"volume-title-short", cslString}, {"year-suffix", cslString},
	// Number variables: a string or a number.
	{"chapter-number", cslStringOrNum}, {"citation-number", cslStringOrNum}, {"collection-number", cslStringOrNum},
	{"edition", cslStringOrNum}, {"first-reference-note-number", cslStringOrNum}, {"issue", cslStringOrNum},
	{"locator", cslStringOrNum}, {"number", cslStringOrNum}, {"number-of-pages", cslStringOrNum},
	{"number-of-volumes", cslStringOrNum}, {"page", cslStringOrNum}, {"page-first", cslStringOrNum},
	{"part", cslStringOrNum}, {"printing", cslStringOrNum}, {"supplement", cslStringOrNum}, {"volume", cslStringOrNum},
	// The rest of the schema's properties.
	{"categories", cslStrings}, {"custom", cslObject},
}

// cslTypes are the item types of the schema's "type" enumeration.
var cslTypes = map[string]bool{
	"article": true, "article-journal": true, "article-magazine": true, "article-newspaper": true,
	"bill": true, "book": true, "broadcast": true, "chapter": true, "classic": true, "collection": true,
	"dataset": true, "document": true, "entry": true, "entry-dictionary": true, "entry-encyclopedia": true,
	"event": true, "figure": true, "graphic": true, "hearing": true, "interview": true, "legal_case": true,
	"legislation": true, "manuscript": true, "map": true, "motion_picture": true, "musical_score": true,
	"pamphlet": true, "paper-conference": true, "patent": true, "performance": true, "periodical": true,
	"personal_communication": true, "post": true, "post-weblog": true, "regulation": true, "report": true,
	"review": true, "review-book": true, "software": true, "song": true, "speech": true, "standard": true,
	"thesis": true, "treaty": true, "webpage": true,
}

// cslDefaultType is the type of an item whose metadata names none of
// cslTypes: the schema requires one, and "document" is its type for a
// work that fits no other.
const cslDefaultType = "document"

// The members of a name-variable object and of a date-variable object
// (additionalProperties: false in both), with the JSON kinds each takes.
var (
	cslNameMembers = map[string]string{
		"family": "s", "given": "s", "dropping-particle": "s", "non-dropping-particle": "s",
		"suffix": "s", "literal": "s",
		"comma-suffix": "snb", "static-ordering": "snb", "parse-names": "snb",
	}
	cslDateMembers = map[string]string{
		"date-parts": "a", "season": "sn", "circa": "snb", "literal": "s", "raw": "s",
	}
)

// valueKind is the kind of a JSON value, by its first byte: s(tring),
// n(umber), b(oolean), o(bject), a(rray), or 0 for null. raw is a valid
// JSON value without leading space (as encoding/json hands out a
// RawMessage).
func valueKind(raw json.RawMessage) byte {
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '"':
		return 's'
	case '{':
		return 'o'
	case '[':
		return 'a'
	case 't', 'f':
		return 'b'
	case 'n':
		return 0
	}
	return 'n'
}

// cslItem is the CSL item of rec: id its name, type the metadata's when
// it is a CSL type, URL its first location, and the metadata members that
// are CSL variables of the right shape. It is always a valid item.
func cslItem(rec resolver.Record) []byte {
	// A record written before metadata had to be an object (a legacy
	// import) may hold anything: then it has no variables to give.
	var meta map[string]json.RawMessage
	if json.Unmarshal(rec.Metadata, &meta) != nil {
		meta = nil
	}
	b := make([]byte, 0, 64+len(rec.URN)+len(rec.Metadata))
	b = append(b, `{"id":`...)
	b = appendJSONString(b, rec.URN)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, cslItemType(meta["type"]))
	for _, v := range cslVariables {
		var val []byte
		if v.name == "URL" && len(rec.Locations) > 0 {
			val = appendJSONString(nil, rec.Locations[0].URL)
		} else if raw, ok := meta[v.name]; ok {
			val = cslValue(v.shape, raw)
		}
		if val == nil {
			continue
		}
		b = append(b, ',', '"')
		b = append(b, v.name...)
		b = append(b, '"', ':')
		b = append(b, val...)
	}
	return append(b, '}', '\n')
}

// cslItemType is the metadata's type when it names a CSL type, else
// cslDefaultType. A type of another vocabulary ("journal-article", which
// Crossref's answers carry) is not guessed at.
func cslItemType(raw json.RawMessage) string {
	var t string
	if valueKind(raw) == 's' && json.Unmarshal(raw, &t) == nil && cslTypes[t] {
		return t
	}
	return cslDefaultType
}

// cslValue returns raw as the variable's value when it has the shape, a
// date string converted to date-parts, or nil.
func cslValue(shape cslShape, raw json.RawMessage) []byte {
	if !utf8.Valid(raw) { // JSON is UTF-8 (RFC 8259 §8.1); a legacy record's metadata may not be
		return nil
	}
	k := valueKind(raw)
	ok := false
	switch shape {
	case cslString:
		ok = k == 's'
	case cslStringOrNum:
		ok = k == 's' || k == 'n'
	case cslNames:
		ok = cslNameList(raw)
	case cslDate:
		if k == 's' {
			return cslDateString(raw)
		}
		ok = cslDateObject(raw)
	case cslStrings:
		var items []json.RawMessage
		ok = k == 'a' && json.Unmarshal(raw, &items) == nil && allKind(items, "s")
	case cslObject:
		ok = k == 'o'
	}
	// The value goes out as stored, so it must not hold a member name
	// twice: the check above saw the last of them (encoding/json's
	// choice), a reader may keep the first (RFC 8259 §4 leaves it open).
	if !ok || !uniqueMembers(raw) {
		return nil
	}
	return raw
}

// uniqueMembers reports whether no object in the JSON value raw has two
// members of one name.
func uniqueMembers(raw json.RawMessage) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var open []map[string]bool // the names seen in each enclosing object; nil for an array
	expectName := func() bool { return len(open) > 0 && open[len(open)-1] != nil }
	inName := false // the next token of the innermost object is a name
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				open = append(open, map[string]bool{})
				inName = true
				continue
			case '[':
				open = append(open, nil)
			default:
				open = open[:len(open)-1]
			}
		case string:
			if inName {
				if open[len(open)-1][t] {
					return false
				}
				open[len(open)-1][t] = true
				inName = false
				continue
			}
		}
		// A value ended (or an array began): in an object, a name comes
		// next.
		inName = expectName()
	}
}

// kindIn reports whether v is of one of the kinds (valueKind's letters).
func kindIn(v json.RawMessage, kinds string) bool {
	k := valueKind(v)
	return k != 0 && strings.IndexByte(kinds, k) >= 0
}

// allKind reports whether every value is of one of the kinds.
func allKind(vs []json.RawMessage, kinds string) bool {
	for _, v := range vs {
		if !kindIn(v, kinds) {
			return false
		}
	}
	return true
}

// membersOK reports whether raw is an object whose every member is one of
// allowed, of a kind allowed gives it.
func membersOK(raw json.RawMessage, allowed map[string]string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if valueKind(raw) != 'o' || json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	for name, v := range m {
		kinds, ok := allowed[name]
		if !ok || !kindIn(v, kinds) {
			return nil, false
		}
	}
	return m, true
}

// cslNameList reports whether raw is an array of name-variable objects.
func cslNameList(raw json.RawMessage) bool {
	var names []json.RawMessage
	if valueKind(raw) != 'a' || json.Unmarshal(raw, &names) != nil {
		return false
	}
	for _, n := range names {
		if _, ok := membersOK(n, cslNameMembers); !ok {
			return false
		}
	}
	return true
}

// cslDateObject reports whether raw is a date-variable object: its
// date-parts one or two dates (a range), each of one to three parts
// (year, month, day), strings or numbers.
func cslDateObject(raw json.RawMessage) bool {
	m, ok := membersOK(raw, cslDateMembers)
	if !ok {
		return false
	}
	dp, has := m["date-parts"]
	if !has {
		return true
	}
	var dates []json.RawMessage
	if json.Unmarshal(dp, &dates) != nil || len(dates) < 1 || len(dates) > 2 {
		return false
	}
	for _, d := range dates {
		var parts []json.RawMessage
		if valueKind(d) != 'a' || json.Unmarshal(d, &parts) != nil || len(parts) < 1 || len(parts) > 3 || !allKind(parts, "sn") {
			return false
		}
	}
	return true
}

// cslDateString converts a date written as a string, the way people
// write one in metadata (ISO 8601's calendar date, RFC 3339's full-date,
// or its reduced precisions: "2019-05-01", "2019-05", "2019"), to the
// schema's date-parts; nil for any other string. The v1.0 schema takes a
// date as an object only, and a processor may read a bare string as a
// literal or not at all.
func cslDateString(raw json.RawMessage) []byte {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var layout string
	n := 0 // parts: year, month, day
	switch len(s) {
	case 4:
		layout, n = "2006", 1
	case 7:
		layout, n = "2006-01", 2
	case 10:
		layout, n = time.DateOnly, 3
	default:
		return nil
	}
	for i, c := range []byte(s) {
		if (i == 4 || i == 7) != (c == '-') || c != '-' && (c < '0' || c > '9') {
			return nil
		}
	}
	t, err := time.Parse(layout, s) // checks the month, and that the day exists
	if err != nil {
		return nil
	}
	parts := []int{t.Year(), int(t.Month()), t.Day()}[:n]
	b := []byte(`{"date-parts":[[`)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return append(b, "]]}"...)
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// writeCSL answers rec as a CSL item of media type mt (the one the client
// asked for: the registered name or its older alias).
func writeCSL(rw *respWriter, mt string, rec resolver.Record) {
	b := cslItem(rec)
	hd := rw.Header()
	hd.Set("Content-Type", mt)
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	rw.WriteHeader(http.StatusOK)
	rw.Write(b)
}

// citationAsked returns the CSL media type that the Accept header of a
// request for the path style's default service prefers to everything
// else, or "". DOI's resolver answers a citation tool this way: the name
// that sends a browser on to the landing page gives a tool asking for CSL
// the metadata. The redirect goes to a location of any type, so it is
// worth to the client what the best media range that is not a CSL type
// is; the CSL item wins only when its type is named with a higher quality
// (at equal quality the redirect, the default answer, wins, as an earlier
// offer does in negotiate). */* or application/* alone never asks for it.
//
// This runs on every path-style request, I2L's hot path: a header that
// has no "+json" in it (a browser's, curl's, none) costs one scan, and
// nothing here allocates.
func citationAsked(accept string) string {
	if !hasJSONSuffix(accept) {
		return ""
	}
	mt, q := mtCSL, acceptQ(accept, mtCSL)
	if aq := acceptQ(accept, mtCiteproc); aq > q {
		mt, q = mtCiteproc, aq
	}
	if q <= 0 || q <= otherRangesQ(accept) {
		return ""
	}
	return mt
}

// hasJSONSuffix reports whether s contains "+json" in any case (RFC 9110
// §8.3.1: media types are case-insensitive), as both CSL types do.
func hasJSONSuffix(s string) bool {
	for i := strings.IndexByte(s, '+'); i >= 0 && i+5 <= len(s); {
		if strings.EqualFold(s[i+1:i+5], "json") {
			return true
		}
		j := strings.IndexByte(s[i+1:], '+')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// otherRangesQ is the highest quality the Accept header gives a media
// range that is not one of the CSL types (-1 when it has none): ranges
// with a malformed weight are ignored, as acceptQ ignores them.
func otherRangesQ(accept string) int {
	best := -1
	for rest := accept; rest != ""; {
		var rng string
		rng, rest, _ = strings.Cut(rest, ",")
		name, params, _ := strings.Cut(rng, ";")
		name = strings.TrimSpace(name)
		if !strings.Contains(name, "/") || strings.EqualFold(name, mtCSL) || strings.EqualFold(name, mtCiteproc) {
			continue
		}
		if q, ok := qParam(params); ok && q > best {
			best = q
		}
	}
	return best
}
