package resolver

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// recordJSON is a record as the JSON API shows it and as the history keeps
// it: one shape for both, so that a record read back as of a time looks
// exactly like one read now.
type recordJSON struct {
	URN       string          `json:"urn"`
	Aliases   []string        `json:"aliases"`
	Locations []Location      `json:"locations"`
	Metadata  json.RawMessage `json:"metadata"`
	Status    Status          `json:"status"`
	Redirect  int             `json:"redirect"`
	Successor string          `json:"successor,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Authority int64           `json:"authority"`
	Created   time.Time       `json:"created"`
	Updated   time.Time       `json:"updated"`
	// Predecessors is never in a history entry: a Record read from a
	// store has none (see Record.Predecessors).
	Predecessors     []string `json:"predecessors,omitempty"`
	MorePredecessors bool     `json:"more_predecessors,omitempty"`
}

// MarshalJSON gives the record's public JSON form (the body of
// GET /api/v1/names/{urn}).
func (r Record) MarshalJSON() ([]byte, error) {
	j := recordJSON{
		URN: r.URN, Aliases: r.Aliases, Locations: r.Locations, Metadata: r.Metadata,
		Status: r.Status, Redirect: r.Redirect, Successor: r.Successor, Reason: r.Reason,
		Authority: r.AuthorityID, Created: r.Created.UTC(), Updated: r.Updated.UTC(),
		Predecessors: r.Predecessors, MorePredecessors: r.MorePredecessors,
	}
	if j.Aliases == nil {
		j.Aliases = []string{}
	}
	if j.Locations == nil {
		j.Locations = []Location{}
	}
	if len(j.Metadata) == 0 {
		j.Metadata = json.RawMessage("{}")
	}
	if b, ok := appendRecordJSON(make([]byte, 0, 256), &j); ok {
		return b, nil
	}
	return json.Marshal(j)
}

// appendRecordJSON appends what json.Marshal(j) gives, for the common
// case it can write without encoding/json's reflection, which was a tenth
// of an import's processor time: strings and compact metadata with no
// character that encoding/json escapes, times within years 0 to 9999.
// It reports false, having written a partial value, for anything else.
func appendRecordJSON(b []byte, j *recordJSON) ([]byte, bool) {
	ok := true
	str := func(s string) {
		if !plainJSON(s) {
			ok = false
		}
		b = append(append(append(b, '"'), s...), '"')
	}
	b = append(b, `{"urn":`...)
	str(j.URN)
	b = append(b, `,"aliases":[`...)
	for i, a := range j.Aliases {
		if i > 0 {
			b = append(b, ',')
		}
		str(a)
	}
	b = append(b, `],"locations":[`...)
	for i, l := range j.Locations {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"url":`...)
		str(l.URL)
		if l.Type != "" {
			b = append(b, `,"type":`...)
			str(l.Type)
		}
		if l.Label != "" {
			b = append(b, `,"label":`...)
			str(l.Label)
		}
		b = append(b, '}')
	}
	b = append(b, `],"metadata":`...)
	if !compactPlainJSON(j.Metadata) {
		return b, false
	}
	b = append(b, j.Metadata...)
	b = append(b, `,"status":`...)
	str(string(j.Status))
	b = append(b, `,"redirect":`...)
	b = strconv.AppendInt(b, int64(j.Redirect), 10)
	if j.Successor != "" {
		b = append(b, `,"successor":`...)
		str(j.Successor)
	}
	if j.Reason != "" {
		b = append(b, `,"reason":`...)
		str(j.Reason)
	}
	b = append(b, `,"authority":`...)
	b = strconv.AppendInt(b, j.Authority, 10)
	for _, f := range []struct {
		name string
		t    time.Time
	}{{`,"created":"`, j.Created}, {`,"updated":"`, j.Updated}} {
		// time.Time's MarshalJSON is RFC 3339 with nanoseconds, and an
		// error outside these years.
		if y := f.t.Year(); y < 0 || y > 9999 {
			return b, false
		}
		b = append(f.t.AppendFormat(append(b, f.name...), time.RFC3339Nano), '"')
	}
	if len(j.Predecessors) > 0 {
		b = append(b, `,"predecessors":[`...)
		for i, p := range j.Predecessors {
			if i > 0 {
				b = append(b, ',')
			}
			str(p)
		}
		b = append(b, ']')
	}
	if j.MorePredecessors {
		b = append(b, `,"more_predecessors":true`...)
	}
	return append(b, '}'), ok
}

// plainJSON reports whether encoding/json writes s as it is between
// quotes: valid UTF-8 without control characters, the quote, the
// backslash, the <, > and & it escapes for HTML, or U+2028 and U+2029,
// which it escapes for JavaScript.
func plainJSON(s string) bool {
	high := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			return false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return !high || utf8.ValidString(s) && !strings.ContainsAny(s, "\u2028\u2029")
}

// compactPlainJSON reports whether encoding/json writes m, a
// json.RawMessage, as it is: valid JSON without whitespace between
// tokens, and without <, >, & or U+2028 and U+2029 (which it escapes) in
// its strings.
func compactPlainJSON(m json.RawMessage) bool {
	if string(m) == "{}" {
		return true
	}
	in := false
	for i := 0; i < len(m); i++ {
		switch c := m[i]; {
		case c == '<' || c == '>' || c == '&' || c == 0xe2: // 0xe2 starts U+2028 and U+2029
			return false
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return json.Valid(m)
}

// UnmarshalJSON reads the form MarshalJSON writes. Record.ID, Key and the
// locations' keys are not part of it.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{
		URN: j.URN, Aliases: j.Aliases, Locations: j.Locations, Metadata: j.Metadata,
		Status: j.Status, Redirect: j.Redirect, Successor: j.Successor, Reason: j.Reason,
		AuthorityID: j.Authority, Created: j.Created, Updated: j.Updated,
		Predecessors: j.Predecessors, MorePredecessors: j.MorePredecessors,
	}
	return nil
}

// authorityJSON is an authority as the API and the history show it.
type authorityJSON struct {
	ID       int64     `json:"id"`
	Name     string    `json:"name"`
	Prefixes []string  `json:"prefixes"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// MarshalJSON gives the authority's public JSON form.
func (a Authority) MarshalJSON() ([]byte, error) {
	p := a.Prefixes
	if p == nil {
		p = []string{}
	}
	return json.Marshal(authorityJSON{a.ID, a.Name, p, a.Created.UTC(), a.Updated.UTC()})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (a *Authority) UnmarshalJSON(b []byte) error {
	var j authorityJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*a = Authority(j)
	return nil
}

// tokenJSON is a token as the API and the history show it: never its hash.
type tokenJSON struct {
	ID        int64      `json:"id"`
	Authority int64      `json:"authority"`
	Label     string     `json:"label,omitempty"`
	Created   time.Time  `json:"created"`
	Revoked   *time.Time `json:"revoked,omitempty"`
}

// MarshalJSON gives the token's public JSON form, without its hash.
func (t Token) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.entryJSON().tokenJSON)
}

// tokenEntryJSON is a token as the history records it (token.create and
// token.revoke entries): its public form and the fingerprint of its hash,
// so that Verify can tell that the hash stored for a token is still the
// one stored when it was created. Entries written before the fingerprint
// was recorded have none; they read as before.
type tokenEntryJSON struct {
	tokenJSON
	Fingerprint string `json:"fingerprint,omitempty"`
}

// adminTokenEntryJSON is the data of an admin.token entry: the
// fingerprint of the admin token's hash and, when it replaced another
// (a rotation), the fingerprint of the hash it replaced.
type adminTokenEntryJSON struct {
	Fingerprint string `json:"fingerprint"`
	Replaces    string `json:"replaces,omitempty"`
}

func (t Token) entryJSON() tokenEntryJSON {
	j := tokenEntryJSON{tokenJSON: tokenJSON{ID: t.ID, Authority: t.AuthorityID, Label: t.Label, Created: t.Created.UTC()},
		Fingerprint: tokenFingerprint(t.Hash)}
	if !t.Revoked.IsZero() {
		r := t.Revoked.UTC()
		j.Revoked = &r
	}
	return j
}

// ruleJSON is a delegation rule as the API and the history show it.
type ruleJSON struct {
	ID      int64     `json:"id"`
	Prefix  string    `json:"prefix"`
	Target  string    `json:"target"`
	Created time.Time `json:"created"`
}

// MarshalJSON gives the rule's public JSON form.
func (r Rule) MarshalJSON() ([]byte, error) {
	return json.Marshal(ruleJSON{r.ID, r.Prefix, r.Target, r.Created.UTC()})
}

// entryJSON is a history entry as the API shows it.
type entryJSON struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Action    Action          `json:"action"`
	Subject   string          `json:"subject"`
	Actor     string          `json:"actor"`
	Authority int64           `json:"authority,omitempty"`
	Record    int64           `json:"record,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Prev      []byte          `json:"prev,omitempty"`
	Hash      []byte          `json:"hash"`
}

// MarshalJSON gives the entry's public JSON form; hashes are base64 (the
// encoding/json default for bytes). It holds every field ChainHash covers,
// the record's internal id too, so that a reader can recompute the hash of
// each entry it is shown (docs/httpapi.md gives the encoding).
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(entryJSON{e.Seq, e.Time.UTC(), e.Action, e.Subject, e.Actor, e.AuthorityID, e.RecordID, e.Data, e.Prev, e.Hash})
}
