package web

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/urikit/urikit/resolver"
	htmllink "github.com/urikit/urikit/resolver/internal/link"
	"github.com/urikit/urikit/resolver/internal/prettyjson"
	"github.com/urikit/urikit/urn"
)

// layout is what every page gives the layout template.
type layout struct {
	Site   string // the resolver's title
	Title  string // this page's title
	Search string // the search box's value
	API    string // the JSON API's path, for the script
	CSS    string
	JS     string
	Status int // the answer's status code
}

type homeData struct {
	layout
}

type problemData struct {
	layout
	Detail string
}

// nameData is the page of a well-formed name.
type nameData struct {
	layout
	Parts   parts
	Found   bool
	Alias   bool // the name asked for is an alias of Record.URN
	Equiv   bool // the name asked for is another spelling of Record.URN
	Record  recordView
	History []entryView // the entries shown, oldest first
	// Older is the link to the page of the entries before those shown,
	// "" when there are none; Newest the link back to the newest, "" when
	// they are shown.
	Older, Newest string
	Rule          *resolver.Rule // for a name with no record: the delegation it takes
	// Reserved: the name is an alias a record dropped (resolver.ErrReserved),
	// answered 404 and never delegated.
	Reserved bool
}

// component is an optional part of a URN.
type component struct {
	Value   string
	Present bool
}

// parts is a URN taken apart, for the "Parsed name" section.
type parts struct {
	Name       string // as asked
	Assigned   string // "urn:" NID ":" NSS
	NID, NSS   string
	Decoded    string // the NSS with percent-encodings decoded, when that differs
	R, Q, F    component
	Directives []urn.Directive // of the r-component, when it is a directive list
	Service    string          // the s= directive, when it names a service
	DirErr     string          // why the r-component is no directive list

	Class     string // RFC 8141 §5 class of the NID
	ClassWhy  string
	ClassWarn bool

	Registered   bool // in the IANA registry snapshot
	Registration urn.Registration

	Namespace  bool   // urikit knows the namespace's own rules
	NSRef      string // the document they come from
	NSRule     string // its equivalence rule, in a few words
	NSValid    bool
	NSError    string
	Canonical  string // RFC 8141 §3.1 canonical form
	IsCanon    bool
	Key        string // equivalence key (namespace rules applied)
	KeyDiffers bool   // the key is not the canonical form
}

func partsOf(u urn.URN) parts {
	p := parts{
		Name: u.String(), Assigned: u.AssignedName(), NID: u.NID(), NSS: u.NSS(),
		Canonical: u.CanonicalString(), IsCanon: u.IsCanonical(), Key: u.Key(),
	}
	p.KeyDiffers = p.Key != p.Canonical
	if d := u.DecodedNSS(); d != u.NSS() {
		p.Decoded = displayText(d)
	}
	p.R.Value, p.R.Present = u.RComponent()
	p.Q.Value, p.Q.Present = u.QComponent()
	p.F.Value, p.F.Present = u.FComponent()
	if p.R.Present && p.R.Value != "" {
		if ds, err := urn.ParseDirectives(p.R.Value); err != nil {
			p.DirErr = reasonOf(err)
		} else {
			p.Directives = ds.List
			p.Service, _ = ds.Service()
		}
	}
	c, why := urn.ClassifyNID(u.NID())
	p.Class, p.ClassWhy, p.ClassWarn = c.String(), why, c.Warn()
	p.Registration, p.Registered = urn.LookupNID(u.NID())
	if ns, ok := urn.LookupNamespace(u.NID()); ok {
		p.Namespace, p.NSRef, p.NSRule = true, ns.Reference(), ns.Rule()
		if err := u.Validate(); err != nil {
			var ne *urn.NamespaceError
			if errors.As(err, &ne) {
				p.NSError = ne.Reason
			} else {
				p.NSError = err.Error()
			}
		} else {
			p.NSValid = true
		}
	}
	return p
}

func reasonOf(err error) string {
	var ue *urn.Error
	if errors.As(err, &ue) {
		return ue.Reason
	}
	return err.Error()
}

// parseName parses a name asked for. The error is a *urn.Error with the
// byte offset of the first offending byte.
func parseName(name string) (urn.URN, *urn.Error) {
	u, err := urn.Parse(name)
	if err == nil {
		return u, nil
	}
	var ue *urn.Error
	if !errors.As(err, &ue) {
		ue = &urn.Error{Input: name, Offset: 0, Reason: err.Error()}
	}
	return urn.URN{}, ue
}

// link is a piece of text and where it leads.
// link is a name or URI shown on a page, with where it leads: URL is
// either this resolver's own page for a name, or a URI whose scheme only
// navigates (resolver/internal/link); "" when it is shown as text only.
type link struct {
	Text string
	URL  template.URL
}

type locationView struct {
	N                int
	URL, Type, Label string
}

type recordView struct {
	URN       string
	PageURL   string
	Withdrawn bool
	Status    string
	Reason    string
	Successor *link
	// Predecessors are the withdrawn records that name this one as their
	// successor, linked to their pages.
	Predecessors []link
	// MorePredecessors: more records than these name it (MaxPredecessors).
	MorePredecessors bool
	Redirect         string // "303 See Other"
	Aliases          []link
	Locations        []locationView
	Metadata         string // indented JSON; "" when the object is empty
	Authority        int64
	Created          time.Time
	Updated          time.Time
	// ETag is the record's entity-tag (resolver.Record.ETag): the page's
	// writes send it in If-Match, so that one made meanwhile by someone
	// else is not overwritten.
	ETag string
	// Own is the record's JSON as the API gives it, without its
	// predecessors: after a 412, a write of the page's compares it with
	// the record as it is now, to tell a change of the record from a
	// change of its predecessors alone (app.js, writeMatching).
	Own string
	// WithdrawnAt is when the name was withdrawn: its notice may have
	// been restated since (Updated), which is not the withdrawal.
	WithdrawnAt time.Time
}

// ownJSON is r's JSON form without its predecessors ("" if it has none).
func ownJSON(r resolver.Record) string {
	r.Predecessors, r.MorePredecessors = nil, false
	b, err := r.MarshalJSON()
	if err != nil {
		return ""
	}
	return string(b)
}

func recordViewOf(r resolver.Record) recordView {
	v := recordView{
		URN: r.URN, PageURL: pageURL(r.URN), Withdrawn: r.Status == resolver.Withdrawn,
		Status: string(r.Status), Reason: r.Reason, Authority: r.AuthorityID,
		Created: r.Created, Updated: r.Updated, ETag: r.ETag(),
		Own:      ownJSON(r),
		Redirect: fmt.Sprintf("%d %s", r.Redirect, http.StatusText(r.Redirect)),
	}
	if r.Successor != "" {
		v.Successor = &link{Text: r.Successor, URL: uriURL(r.Successor)}
	}
	for _, a := range r.Aliases {
		v.Aliases = append(v.Aliases, link{Text: a, URL: template.URL(pageURL(a))})
	}
	for _, p := range r.Predecessors {
		v.Predecessors = append(v.Predecessors, link{Text: p, URL: template.URL(pageURL(p))})
	}
	v.MorePredecessors = r.MorePredecessors
	for i, l := range r.Locations {
		v.Locations = append(v.Locations, locationView{N: i + 1, URL: l.URL, Type: l.Type, Label: l.Label})
	}
	v.Metadata = indentJSON(r.Metadata)
	return v
}

// indentJSON returns a JSON object indented for reading, or "" for an empty
// one. prettyjson bounds the indented text: a record stored before writes
// limited the depth may be nested thousands deep.
func indentJSON(m json.RawMessage) string {
	m = bytes.TrimSpace(m)
	if len(m) == 0 || string(m) == "{}" || string(m) == "null" {
		return ""
	}
	s, err := prettyjson.Indent(m)
	if err != nil {
		return string(m)
	}
	return s
}

// uriURL is where a link to the URI s leads: the page of a URN; else s
// itself when its scheme only navigates, or "" (no link) for any other.
func uriURL(s string) template.URL {
	if u, err := urn.Parse(s); err == nil {
		return template.URL(pageURL(u.String())) // built here, escaped
	}
	return htmllink.Href(s)
}

// pageURL is the address of a name's page on this resolver. It is
// "/names/" and the name as written, unless a browser would change that
// path before sending it: WHATWG URL parsing removes "." and ".." segments,
// also spelled "%2e". Those names, and any with a "?" or "#" part, are
// linked through the search form's query instead, where nothing is
// rewritten.
func pageURL(name string) string {
	if strings.ContainsAny(name, "?#") || hasDotSegment(name) {
		return "/?urn=" + url.QueryEscape(name)
	}
	return "/names/" + name
}

func hasDotSegment(name string) bool {
	for seg := range strings.SplitSeq(name, "/") {
		s := strings.ToLower(seg)
		s = strings.ReplaceAll(s, "%2e", ".")
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

type entryView struct {
	Seq     int64
	Time    time.Time
	Action  string
	Actor   string
	Hash    string // first 12 hex digits
	Full    string // the whole hash, hex
	Summary string
}

// historyView turns history entries into rows, with a summary of the
// record each entry stored; before is the entry before the first (Seq 0:
// none), which tells how the first reads.
func historyView(h []resolver.Entry, before resolver.Entry) []entryView {
	out := make([]entryView, 0, len(h))
	var prev resolver.Action
	if before.Action.ChangesRecord() {
		prev = before.Action
	}
	for _, e := range h {
		full := hex.EncodeToString(e.Hash)
		short := full
		if len(short) > 12 {
			short = short[:12]
		}
		action := actionText(e.Action)
		if e.Action == resolver.ActionNameWithdraw && prev == resolver.ActionNameWithdraw {
			action = "withdrawal notice restated"
		}
		out = append(out, entryView{Seq: e.Seq, Time: e.Time, Action: action, Actor: e.Actor,
			Hash: short, Full: full, Summary: summary(e)})
		if e.Action.ChangesRecord() {
			prev = e.Action
		}
	}
	return out
}

func actionText(a resolver.Action) string {
	switch a {
	case resolver.ActionNameCreate:
		return "registered"
	case resolver.ActionNameUpdate:
		return "changed"
	case resolver.ActionNameWithdraw:
		return "withdrawn"
	case resolver.ActionKeysMigrate:
		return "keys migrated"
	case resolver.ActionLocationsMigrate:
		return "location keys migrated"
	case resolver.ActionLocationsRekey:
		return "location keys: a step of a migration"
	case resolver.ActionAdminToken:
		return "admin token generated or rotated"
	case resolver.ActionAdminEnvironment:
		return "admin token set in the environment"
	}
	return string(a)
}

// summary describes the record an entry stored, in a few words.
func summary(e resolver.Entry) string {
	var r resolver.Record
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &r) != nil || r.URN == "" {
		return ""
	}
	if r.Status == resolver.Withdrawn {
		var s []string
		if r.Reason != "" {
			s = append(s, r.Reason)
		}
		if r.Successor != "" {
			s = append(s, "successor "+r.Successor)
		}
		return strings.Join(s, " · ")
	}
	parts := []string{plural(len(r.Locations), "location")}
	if len(r.Locations) > 0 {
		parts[0] += ", first " + r.Locations[0].URL
	}
	if len(r.Aliases) > 0 {
		parts = append(parts, plural(len(r.Aliases), "alias"))
	}
	parts = append(parts, fmt.Sprintf("redirect %d", r.Redirect))
	return strings.Join(parts, " · ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "s") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// malformedData is the page of a name that is no URN: the input with the
// offending byte marked and a caret under it.
type malformedData struct {
	layout
	Before, At, After string // the input, shown; At is the offending character
	Caret             string // spaces up to the offending column
	Offset            int
	Reason            string
	Length            int
}

func malformedView(l layout, input string, e *urn.Error) malformedData {
	off := e.Offset
	if off < 0 {
		off = 0
	}
	if off > len(input) {
		off = len(input)
	}
	d := malformedData{layout: l, Offset: off, Reason: e.Reason, Length: len(input)}
	d.Status = http.StatusBadRequest
	var col int
	d.Before, col = shown(input[:off])
	d.Caret = strings.Repeat(" ", col)
	if off < len(input) {
		_, size := utf8.DecodeRuneInString(input[off:])
		d.At, _ = shown(input[off : off+size])
		d.After, _ = shown(input[off+size:])
	}
	return d
}

// shown makes s printable for the caret display and returns its width in
// columns of a monospace font: controls and bytes that are not UTF-8 become
// \xNN, so that the caret lines up under the byte the offset names.
func shown(s string) (string, int) {
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
			!unicode.IsPrint(r) && r != ' ':
			for j := 0; j < size; j++ {
				fmt.Fprintf(&b, `\x%02X`, s[i+j])
				col += 4
			}
		default:
			b.WriteRune(r)
			col += runeWidth(r)
		}
		i += size
	}
	return b.String(), col
}

// runeWidth is the number of monospace columns r takes: 0 for combining
// marks, 2 for East Asian wide characters and emoji, else 1.
func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// displayText makes arbitrary request bytes safe to show: valid UTF-8, with
// controls spelled \xNN (html/template escapes the rest).
func displayText(s string) string {
	t, _ := shown(s)
	return t
}

// funcMap returns the templates' helpers.
func funcMap(api string) template.FuncMap {
	return template.FuncMap{
		// href: a location's link, or "" when its scheme is not one a
		// browser only navigates to (package link); the page then shows
		// it as text.
		"href": htmllink.Href,
		"page": pageURL,
		"seg":  pathSegment,
		// service is the RFC 2169 request for a name: the name goes in the
		// query exactly as written (built here, since html/template would
		// percent-encode a value placed after the "?").
		"service": func(svc, name string) string { return "/uri-res/" + svc + "?" + name },
		"apiName": func(name string) string { return api + "/names/" + pathSegment(name) },
		"time": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"isotime":    func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
		"statusText": http.StatusText,
	}
}

// pathSegment percent-encodes a name for use as one path segment of the
// JSON API (/api/v1/names/{urn}): "%", "/", "?" and "#", and anything that
// is no pchar (RFC 3986 §3.3), so that the server's single decoding gives
// the name back.
func pathSegment(name string) string {
	const hexdig = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isPchar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexdig[c>>4])
		b.WriteByte(hexdig[c&15])
	}
	return b.String()
}

// isPchar reports whether c may stand unencoded in a path segment: unreserved,
// sub-delims, ":" or "@" (RFC 3986 §3.3).
func isPchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}
