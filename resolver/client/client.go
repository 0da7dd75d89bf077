// Package client is a Go client of urikit serve's JSON API (/api/v1/). It
// is what urikit's own commands use against a running server, and what a
// naming authority's scripts can import.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
)

// Client talks to one server with one token.
type Client struct {
	base  string // the server's base URL, without a trailing slash
	token string
	http  *http.Client
}

// New returns a client of the server at base (e.g. http://localhost:8080)
// that sends token as its Bearer token (which may be empty for reads).
func New(base, token string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: 60 * time.Second}}
}

// WithHTTPClient returns a copy of c that uses hc.
func (c *Client) WithHTTPClient(hc *http.Client) *Client {
	d := *c
	d.http = hc
	return &d
}

// problem is the RFC 9457 body of an error answer.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Field  string `json:"field"`
	Offset *int   `json:"offset"`
	Record string `json:"record"`
}

// bareMessage is e's Message without the field and offset that
// resolver.Error.Error adds: the detail of a problem about one input is
// often the Service's error text, which names them already (the server's
// problemFor), and they come again in the members "field" and "offset".
// Kept, Error would say them twice.
func bareMessage(e *resolver.Error) string {
	msg := e.Message
	if e.Field != "" {
		msg = strings.TrimPrefix(msg, e.Field+": ")
	}
	if e.Offset >= 0 {
		msg = strings.TrimSuffix(msg, fmt.Sprintf(" (at byte %d)", e.Offset))
	}
	return msg
}

// kindOf maps an HTTP status to the resolver's error kinds.
func kindOf(status int) resolver.Kind {
	switch status {
	case http.StatusBadRequest, http.StatusRequestURITooLong, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return resolver.KindInvalid
	case http.StatusUnauthorized:
		return resolver.KindUnauthorized
	case http.StatusForbidden:
		return resolver.KindForbidden
	case http.StatusNotFound, http.StatusGone:
		return resolver.KindNotFound
	case http.StatusConflict:
		return resolver.KindConflict
	case http.StatusPreconditionFailed:
		return resolver.KindPrecondition
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return resolver.KindUnavailable
	}
	return resolver.KindInternal
}

// ErrNotAPI is in the error of an answer that did not come from urikit's
// API: an error status without problem details (RFC 9457), as a proxy or
// another server on the port gives. Retrying, or going on with other
// requests, will not help.
var ErrNotAPI = errors.New("the answer is not from a urikit resolver's API")

// ErrNoRoute is in the error of an answer of problem type no-such-route:
// the server has no such resource (the path is wrong, or the server is
// older than the operation).
var ErrNoRoute = errors.New("no such resource on the server")

// NameSegment writes a name as one path segment of /api/v1/names/: the
// server decodes the segment once, so "%" and "/" (and "?" and "#", which
// would end the path) are percent-encoded.
func NameSegment(name string) string { return segmentEscaper.Replace(name) }

var segmentEscaper = strings.NewReplacer("%", "%25", "/", "%2F", "?", "%3F", "#", "%23")

// do sends a request and decodes a JSON answer into out (when not nil).
// An error answer becomes a *resolver.Error.
func (c *Client) do(ctx context.Context, method, path string, in, out any) (int, error) {
	return c.doFields(ctx, method, path, nil, in, out)
}

// fields are header fields beyond do's: those a request sends (send), and
// those its answer had (got).
type fields struct{ send, got http.Header }

// doFields is do that sends f.send too (when f is not nil), and sets
// f.got.
func (c *Client) doFields(ctx context.Context, method, path string, f *fields, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if f != nil {
		for k, v := range f.send {
			req.Header[k] = v
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, &resolver.Error{Kind: resolver.KindUnavailable, Message: "cannot reach the server: " + err.Error(), Offset: -1, Err: err}
	}
	defer resp.Body.Close()
	if f != nil {
		f.got = resp.Header
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, &resolver.Error{Kind: resolver.KindUnavailable, Message: "reading the answer: " + err.Error(), Offset: -1, Err: err}
	}
	if resp.StatusCode >= 300 {
		var p problem
		if json.Unmarshal(data, &p) != nil || p.Status == 0 {
			// Not problem details: whatever answered is not urikit's API
			// (a proxy's error page, another server on the port). Its
			// body is often a page of HTML: say what it was, on one line.
			ct := resp.Header.Get("Content-Type")
			if ct == "" {
				ct = "no Content-Type"
			}
			return resp.StatusCode, &resolver.Error{Kind: kindOf(resp.StatusCode), Offset: -1, Err: ErrNotAPI,
				Message: fmt.Sprintf("%s %s answered %s (%s), not a urikit resolver's problem details", method, c.base+path, resp.Status, ct)}
		}
		msg := p.Detail
		if msg == "" {
			msg = p.Title
		}
		if msg == "" {
			msg = resp.Status
		}
		e := &resolver.Error{Kind: kindOf(resp.StatusCode), Message: msg, Field: p.Field, Offset: -1, Record: p.Record}
		if p.Offset != nil {
			e.Offset = *p.Offset
		}
		e.Message = bareMessage(e)
		// Problem types callers act on (docs/httpapi.md).
		switch {
		case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(p.Type, "#reserved"): // a dropped alias
			e.Err = resolver.ErrReserved
		case resp.StatusCode == http.StatusNotFound && strings.HasSuffix(p.Type, "#no-such-route"):
			e.Err = ErrNoRoute
		case resp.StatusCode == http.StatusServiceUnavailable && strings.HasSuffix(p.Type, "#delegation-unavailable"):
			e.Err = resolver.ErrDiscoveryUnavailable
		}
		return resp.StatusCode, e
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("the server's answer is not what this client expects: %v", err)
		}
	}
	return resp.StatusCode, nil
}

// AuthorityWithToken is an authority as created or transferred, with the
// token shown once.
type AuthorityWithToken struct {
	resolver.Authority
	Token string `json:"token"`
}

// UnmarshalJSON reads the authority and its token.
func (a *AuthorityWithToken) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &a.Authority); err != nil {
		return err
	}
	var t struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	a.Token = t.Token
	return nil
}

// TokenInfo is a maintainer token as the API shows it.
type TokenInfo struct {
	ID        int64      `json:"id"`
	Authority int64      `json:"authority"`
	Label     string     `json:"label"`
	Created   time.Time  `json:"created"`
	Revoked   *time.Time `json:"revoked"`
	Token     string     `json:"token"` // only when just created
}

// CreateAuthority creates a naming authority (admin).
func (c *Client) CreateAuthority(ctx context.Context, name string, prefixes []string) (AuthorityWithToken, error) {
	var a AuthorityWithToken
	_, err := c.do(ctx, http.MethodPost, "/api/v1/authorities", map[string]any{"name": name, "prefixes": prefixes}, &a)
	return a, err
}

// Authorities lists the naming authorities (admin).
func (c *Client) Authorities(ctx context.Context) ([]resolver.Authority, error) {
	var as []resolver.Authority
	_, err := c.do(ctx, http.MethodGet, "/api/v1/authorities", nil, &as)
	return as, err
}

// Identity is whose token a client presents (GET /api/v1/token).
type Identity struct {
	Admin     bool  `json:"admin"`
	Authority int64 `json:"authority"` // a maintainer's; 0 for the admin
	Token     int64 `json:"id"`        // a maintainer's token ID; 0 for the admin
}

// WhoAmI says whose token the client presents: the admin's or a
// maintainer's. An unknown or revoked token is KindUnauthorized; a
// server older than the operation answers KindNotFound.
func (c *Client) WhoAmI(ctx context.Context) (Identity, error) {
	var id Identity
	_, err := c.do(ctx, http.MethodGet, "/api/v1/token", nil, &id)
	return id, err
}

// Authority returns an authority and its tokens.
func (c *Client) Authority(ctx context.Context, id int64) (resolver.Authority, []TokenInfo, error) {
	var raw json.RawMessage
	if _, err := c.do(ctx, http.MethodGet, "/api/v1/authorities/"+strconv.FormatInt(id, 10), nil, &raw); err != nil {
		return resolver.Authority{}, nil, err
	}
	var a resolver.Authority
	var t struct {
		Tokens []TokenInfo `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, nil, err
	}
	err := json.Unmarshal(raw, &t)
	return a, t.Tokens, err
}

// AddToken gives an authority a new maintainer token.
func (c *Client) AddToken(ctx context.Context, id int64, label string) (TokenInfo, error) {
	var t TokenInfo
	_, err := c.do(ctx, http.MethodPost, "/api/v1/authorities/"+strconv.FormatInt(id, 10)+"/tokens", map[string]string{"label": label}, &t)
	return t, err
}

// RevokeToken revokes a maintainer token.
func (c *Client) RevokeToken(ctx context.Context, id, tokenID int64) error {
	_, err := c.do(ctx, http.MethodDelete, fmt.Sprintf("/api/v1/authorities/%d/tokens/%d", id, tokenID), nil, nil)
	return err
}

// TransferAuthority hands an authority to a new owner (admin).
func (c *Client) TransferAuthority(ctx context.Context, id int64, newName string) (AuthorityWithToken, error) {
	var a AuthorityWithToken
	_, err := c.do(ctx, http.MethodPost, "/api/v1/authorities/"+strconv.FormatInt(id, 10)+"/transfer", map[string]string{"name": newName}, &a)
	return a, err
}

// Put creates or replaces the record of name and reports whether it was
// created.
func (c *Client) Put(ctx context.Context, name string, in resolver.RecordInput) (resolver.Record, bool, error) {
	var r resolver.Record
	status, err := c.do(ctx, http.MethodPut, "/api/v1/names/"+NameSegment(name), in, &r)
	return r, status == http.StatusCreated, err
}

// Get returns the record name resolves to.
func (c *Client) Get(ctx context.Context, name string) (resolver.Record, error) {
	var r resolver.Record
	_, err := c.do(ctx, http.MethodGet, "/api/v1/names/"+NameSegment(name), nil, &r)
	return r, err
}

// Withdraw withdraws the record of name.
func (c *Client) Withdraw(ctx context.Context, name, reason, successor string) (resolver.Record, error) {
	var r resolver.Record
	_, err := c.do(ctx, http.MethodPost, "/api/v1/names/"+NameSegment(name)+"/withdraw",
		map[string]string{"reason": reason, "successor": successor}, &r)
	return r, err
}

// GetETag is Get that also returns the record's ETag, to send back as
// PutIf's or WithdrawIf's ifMatch.
func (c *Client) GetETag(ctx context.Context, name string) (resolver.Record, string, error) {
	var r resolver.Record
	var f fields
	_, err := c.doFields(ctx, http.MethodGet, "/api/v1/names/"+NameSegment(name), &f, nil, &r)
	return r, f.got.Get("ETag"), err
}

// PutIf is Put on condition: with ifMatch an ETag (from GetETag, or "*"
// for any record), the record is replaced only while it has that ETag,
// which is how maintainers' read-edit-write cycles keep each other's
// changes; "" is no condition. A false condition is a *resolver.Error of
// KindPrecondition whose ETag is the record's current one. PutIf also
// returns the record's ETag after the write, that of the record the
// answer holds, which a GET then gives too (the answer to a PUT carries
// no ETag: RFC 9110 §9.3.4).
func (c *Client) PutIf(ctx context.Context, name string, in resolver.RecordInput, ifMatch string) (resolver.Record, bool, string, error) {
	var r resolver.Record
	f := ifMatchFields(ifMatch)
	status, err := c.doFields(ctx, http.MethodPut, "/api/v1/names/"+NameSegment(name), f, in, &r)
	if err != nil {
		return r, false, "", withETag(err, f)
	}
	return r, status == http.StatusCreated, r.ETag(), nil
}

// WithdrawIf is Withdraw on condition, as PutIf is Put.
func (c *Client) WithdrawIf(ctx context.Context, name, reason, successor, ifMatch string) (resolver.Record, string, error) {
	var r resolver.Record
	f := ifMatchFields(ifMatch)
	_, err := c.doFields(ctx, http.MethodPost, "/api/v1/names/"+NameSegment(name)+"/withdraw", f,
		map[string]string{"reason": reason, "successor": successor}, &r)
	if err != nil {
		return r, "", withETag(err, f)
	}
	return r, r.ETag(), nil
}

func ifMatchFields(ifMatch string) *fields {
	f := &fields{}
	if ifMatch != "" {
		f.send = http.Header{"If-Match": {ifMatch}}
	}
	return f
}

// withETag puts the current ETag and Last-Modified a 412 carries into its
// error.
func withETag(err error, f *fields) error {
	var e *resolver.Error
	if errors.As(err, &e) && e.Kind == resolver.KindPrecondition {
		e.ETag = f.got.Get("ETag")
		if t, err := http.ParseTime(f.got.Get("Last-Modified")); err == nil {
			e.LastModified = t
		}
	}
	return err
}

// HistoryEntry is one entry of a record's history as the API shows it.
// Its JSON form is the server's: the members the server leaves out when
// they are zero (an entry about no record, withheld data, the first
// entry's missing prev) are left out here too.
type HistoryEntry struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Action    string          `json:"action"`
	Subject   string          `json:"subject"`
	Actor     string          `json:"actor"`
	Authority int64           `json:"authority,omitempty"`
	Record    int64           `json:"record,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Prev      []byte          `json:"prev,omitempty"`
	Hash      []byte          `json:"hash"`
}

// Sound reports whether the entry's hash is that of its fields and Prev
// (resolver.ChainHash, as docs/httpapi.md gives it): an entry that is not
// was changed after it was written.
func (e HistoryEntry) Sound() bool {
	want := resolver.ChainHash(e.Prev, resolver.Entry{Seq: e.Seq, Time: e.Time, Action: resolver.Action(e.Action), Subject: e.Subject,
		RecordID: e.Record, AuthorityID: e.Authority, Actor: e.Actor, Data: e.Data})
	return bytes.Equal(want, e.Hash)
}

// HistoryPage is one page of a record's history, its entries oldest first
// whichever way it was read.
type HistoryPage struct {
	Entries []HistoryEntry
	// Next is the cursor of the page after it, of newer entries (pass it
	// as after to HistoryPage), nil when none remain: the after= of the
	// server's Link with rel="next".
	Next *int64
	// Prev is the cursor of the page before it, of older entries (pass it
	// as before to HistoryPageBefore), nil when none remain: the before=
	// of the server's Link with rel="prev". (A server older than before=
	// gives no such link.)
	Prev *int64
}

// HistoryPage returns the entries of a record's history after the entry
// after (0: from the first), oldest first: at most limit (0: the server's
// default), fewer when the server's page holds as many bytes as it gives
// at once.
func (c *Client) HistoryPage(ctx context.Context, name string, after int64, limit int) (HistoryPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	return c.historyPage(ctx, name, q, limit, func(seq int64) bool { return seq > after }, fmt.Sprintf("after %d", after))
}

// HistoryPageBefore returns the newest entries of a record's history
// before the entry before (0: the newest of all, the server's before=end),
// oldest first as every page: at most limit (0: the server's default),
// fewer when the server's page holds as many bytes as it gives at once.
// Its Prev leads on back to older entries. Entries are numbered from 1,
// so that a walk back ends even on a server that numbers them wrongly.
func (c *Client) HistoryPageBefore(ctx context.Context, name string, before int64, limit int) (HistoryPage, error) {
	q := url.Values{"before": {"end"}}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	return c.historyPage(ctx, name, q, limit, func(seq int64) bool { return seq > 0 && (before <= 0 || seq < before) }, fmt.Sprintf("before %d", before))
}

// historyPage reads the page of a history that q asks for, checking it:
// every entry where the cursor puts it (in, described by where), in
// order, and the links to the pages around it starting from its ends. A
// server that answered otherwise would make History or RecentHistory
// repeat entries, or loop for ever on pages that do not move on.
func (c *Client) historyPage(ctx context.Context, name string, q url.Values, limit int, in func(seq int64) bool, where string) (HistoryPage, error) {
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := withQuery("/api/v1/names/"+NameSegment(name)+"/history", q)
	var p HistoryPage
	f := &fields{}
	if _, err := c.doFields(ctx, http.MethodGet, path, f, nil, &p.Entries); err != nil {
		return HistoryPage{}, err
	}
	notAPI := func(format string, args ...any) error {
		return &resolver.Error{Kind: resolver.KindInternal, Offset: -1, Err: ErrNotAPI,
			Message: "GET " + c.base + path + ": " + fmt.Sprintf(format, args...)}
	}
	for i, e := range p.Entries {
		if !in(e.Seq) {
			return HistoryPage{}, notAPI("entry %d is not %s", e.Seq, where)
		}
		if i > 0 && e.Seq <= p.Entries[i-1].Seq {
			return HistoryPage{}, notAPI("entry %d comes after entry %d (a page holds entries in order)", e.Seq, p.Entries[i-1].Seq)
		}
	}
	for _, l := range []struct {
		rel, param string
		cursor     **int64
		end        func() int64 // the entry the cursor must be
	}{
		{"next", "after", &p.Next, func() int64 { return p.Entries[len(p.Entries)-1].Seq }},
		{"prev", "before", &p.Prev, func() int64 { return p.Entries[0].Seq }},
	} {
		n, ok, err := linkCursor(f.got, l.rel, l.param)
		switch {
		case err != nil:
			return HistoryPage{}, notAPI("%v", err)
		case !ok:
			continue
		case len(p.Entries) == 0:
			return HistoryPage{}, notAPI("an empty page links to a %s page (%s=%d)", l.rel, l.param, n)
		case n != l.end():
			return HistoryPage{}, notAPI("the %s page's cursor %d is not the page's end (%d entries, %d to %d)", l.rel, n, len(p.Entries), p.Entries[0].Seq, p.Entries[len(p.Entries)-1].Seq)
		}
		*l.cursor = &n
	}
	return p, nil
}

// History returns a record's whole history, oldest first, following the
// server's pages to the last; HistoryPage reads one page.
func (c *Client) History(ctx context.Context, name string) ([]HistoryEntry, error) {
	var all []HistoryEntry
	for after := int64(0); ; {
		p, err := c.HistoryPage(ctx, name, after, 0)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Entries...)
		if p.Next == nil {
			if all == nil {
				all = []HistoryEntry{}
			}
			return all, nil
		}
		after = *p.Next
	}
}

// historyDefaultPage is the server's page size when limit is absent
// (docs/httpapi.md): RecentHistory asks for less only when it wants less.
const historyDefaultPage = 1000

// RecentHistory returns the newest n entries of a record's history (every
// entry when n is 0 or less), newest first, reading the server's pages
// back from the newest (before=end) through their links to older ones:
// a client that wants what changed last need not read a long history
// from its start. HistoryPageBefore reads one page.
func (c *Client) RecentHistory(ctx context.Context, name string, n int) ([]HistoryEntry, error) {
	all := []HistoryEntry{}
	for before := int64(0); ; {
		limit := 0
		if rest := n - len(all); n > 0 && rest < historyDefaultPage {
			limit = rest
		}
		p, err := c.HistoryPageBefore(ctx, name, before, limit)
		if err != nil {
			return nil, err
		}
		for i := len(p.Entries) - 1; i >= 0 && (n <= 0 || len(all) < n); i-- {
			all = append(all, p.Entries[i])
		}
		if p.Prev == nil || n > 0 && len(all) == n {
			return all, nil
		}
		before = *p.Prev
	}
}

// linkCursor reads the cursor param of the target of the Link header
// field with relation rel (RFC 8288 §3), when there is one. The client
// keeps its own path and takes only the cursor, so that a server behind a
// proxy that adds a path prefix is still followed.
func linkCursor(h http.Header, rel, param string) (cursor int64, ok bool, err error) {
	targets := linkTargets(h.Values("Link"), rel)
	if len(targets) == 0 {
		return 0, false, nil
	}
	u, err := url.Parse(targets[0])
	if err != nil {
		return 0, false, fmt.Errorf("the Link to the %s page, %q, is not a URI reference: %v", rel, targets[0], err)
	}
	n, err := strconv.ParseInt(u.Query().Get(param), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("the Link to the %s page, %q, has no %s= cursor", rel, targets[0], param)
	}
	return n, true, nil
}

// linkTargets returns the targets of the link-values of Link header
// fields (RFC 8288 §3) whose rel lists rel (relation types compare
// case-insensitively, §2.1.1). A target may hold a comma (a name can), so
// the field is read value by value: "<" target ">" then parameters up to
// the next comma outside a quoted string.
func linkTargets(fields []string, rel string) []string {
	var out []string
	for _, f := range fields {
		for {
			i := strings.IndexByte(f, '<')
			if i < 0 {
				break
			}
			j := strings.IndexByte(f[i:], '>')
			if j < 0 {
				break
			}
			target := f[i+1 : i+j]
			params, rest := linkParams(f[i+j+1:])
			for _, r := range strings.Fields(params["rel"]) {
				if strings.EqualFold(r, rel) {
					out = append(out, target)
					break
				}
			}
			f = rest
		}
	}
	return out
}

// linkParams reads the parameters of one link-value up to the comma that
// ends it, and returns them (names in lower case, values unquoted) and
// what follows that comma.
func linkParams(s string) (map[string]string, string) {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == ',' {
			if s != "" {
				s = s[1:]
			}
			return params, s
		}
		if s[0] != ';' {
			// Not a parameter: skip to the end of this link-value.
			if k := strings.IndexByte(s, ','); k >= 0 {
				return params, s[k+1:]
			}
			return params, ""
		}
		s = strings.TrimLeft(s[1:], " \t")
		k := strings.IndexAny(s, "=;,")
		if k < 0 {
			k = len(s)
		}
		name := strings.ToLower(strings.TrimSpace(s[:k]))
		s = s[k:]
		var value string
		if strings.HasPrefix(s, "=") {
			s = strings.TrimLeft(s[1:], " \t")
			if strings.HasPrefix(s, `"`) {
				var b strings.Builder
				k := 1
				for ; k < len(s) && s[k] != '"'; k++ {
					if s[k] == '\\' && k+1 < len(s) {
						k++
					}
					b.WriteByte(s[k])
				}
				value, s = b.String(), s[min(k+1, len(s)):]
			} else {
				k := strings.IndexAny(s, ";,")
				if k < 0 {
					k = len(s)
				}
				value, s = strings.TrimSpace(s[:k]), s[k:]
			}
		}
		if _, seen := params[name]; !seen {
			params[name] = value // RFC 8288 §3.3: the first rel counts
		}
	}
}

// RuleInfo is a delegation rule as the API shows it.
type RuleInfo struct {
	ID      int64     `json:"id"`
	Prefix  string    `json:"prefix"`
	Target  string    `json:"target"`
	Created time.Time `json:"created"`
}

// AddRule adds a delegation rule (admin).
func (c *Client) AddRule(ctx context.Context, prefix, target string) (RuleInfo, error) {
	var r RuleInfo
	_, err := c.do(ctx, http.MethodPost, "/api/v1/rules", map[string]string{"prefix": prefix, "target": target}, &r)
	return r, err
}

// Rules lists the delegation rules (admin).
func (c *Client) Rules(ctx context.Context) ([]RuleInfo, error) {
	var rs []RuleInfo
	_, err := c.do(ctx, http.MethodGet, "/api/v1/rules", nil, &rs)
	return rs, err
}

// RemoveRule deletes a delegation rule (admin).
func (c *Client) RemoveRule(ctx context.Context, id int64) error {
	_, err := c.do(ctx, http.MethodDelete, "/api/v1/rules/"+strconv.FormatInt(id, 10), nil, nil)
	return err
}

// Discovery is what the server's DDDS discovery finds for a name, rules
// left aside (GET /api/v1/discovery).
type Discovery struct {
	URN     string `json:"urn"`
	Service string `json:"service"`
	// Enabled is whether the server runs DDDS discovery (urikit serve
	// --dns).
	Enabled bool `json:"enabled"`
	// Status is what a resolution request for the name, with no record
	// and no rule, is answered: 303 to URL, 404, or 508.
	Status int    `json:"status"`
	URL    string `json:"url"`
	// Path lists the NAPTR records taken, each with its output, and the
	// SRV target.
	Path []string `json:"path"`
	// Why says on one line what was found, or why nothing was.
	Why string `json:"why"`
}

// Discover asks the server what its DDDS discovery (RFC 3404) finds for
// name and service (admin): a dry run that goes through the DNS, never
// to the resolver found. A server without the operation (older than this
// client) answers an error with ErrNoRoute in it; one whose DNS server
// fails, resolver.ErrDiscoveryUnavailable.
func (c *Client) Discover(ctx context.Context, name, service string) (Discovery, error) {
	q := url.Values{"urn": {name}}
	if service != "" {
		q.Set("service", service)
	}
	var d Discovery
	_, err := c.do(ctx, http.MethodGet, "/api/v1/discovery?"+q.Encode(), nil, &d)
	return d, err
}

// RecordPage is one page of GET /api/v1/names.
type RecordPage struct {
	Records []resolver.Record `json:"records"`
	// Next is the cursor of the next page (pass it as after), nil on the
	// last page.
	Next *int64 `json:"next"`
}

// Records returns one page of the directory's records, withdrawn ones
// too, in ID order, which is the order they were created in: those after
// the cursor after (0 for the first page), at most limit of them (0 means
// the server's default). Admin. Writers that create records at the same
// time (an import on PostgreSQL writes two batches at once) may commit
// them out of ID order, so pages read while names are being created are
// no snapshot: a record can commit behind the cursor. The history is the
// record of what changed since a point.
func (c *Client) Records(ctx context.Context, after int64, limit int) (RecordPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var p RecordPage
	_, err := c.do(ctx, http.MethodGet, withQuery("/api/v1/names", q), nil, &p)
	return p, err
}

// EachRecord calls fn for every record of the directory, a page at a
// time, in ID order (see Records). Admin.
func (c *Client) EachRecord(ctx context.Context, fn func(resolver.Record) error) error {
	var after int64
	for {
		p, err := c.Records(ctx, after, 0)
		if err != nil {
			return err
		}
		for _, r := range p.Records {
			if err := fn(r); err != nil {
				return err
			}
		}
		if p.Next == nil || len(p.Records) == 0 {
			return nil
		}
		after = *p.Next
	}
}

// Duplicate is a location that several records list.
type Duplicate struct {
	Location string            `json:"location"` // after scheme-based normalization
	URNs     []string          `json:"urns"`     // the first 100 (resolver.MaxByLocation)
	Statuses []resolver.Status `json:"statuses"` // the records' statuses, in the order of URNs
	// MoreURNs: more records list the location than URNs holds; Next is
	// then the server's page of GET /api/v1/locations that lists the
	// rest (EachByLocation lists them all).
	MoreURNs bool   `json:"more_urns"`
	Next     string `json:"next"`
}

// DuplicatePage is one page of GET /api/v1/duplicates.
type DuplicatePage struct {
	Duplicates []Duplicate `json:"duplicates"`
	Next       *string     `json:"next"` // nil on the last page
}

// DuplicatesPage returns one page of the locations several active records
// share (with withdrawn, several records whatever their status), after the
// cursor after ("" for the first page). Admin.
func (c *Client) DuplicatesPage(ctx context.Context, after string, limit int, withdrawn bool) (DuplicatePage, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if withdrawn {
		q.Set("withdrawn", "true")
	}
	var p DuplicatePage
	_, err := c.do(ctx, http.MethodGet, withQuery("/api/v1/duplicates", q), nil, &p)
	return p, err
}

// Duplicates calls fn for every location several active records share
// (with withdrawn, several records whatever their status), in the order of
// the normalized location. Admin.
func (c *Client) Duplicates(ctx context.Context, withdrawn bool, fn func(Duplicate) error) error {
	after := ""
	for {
		p, err := c.DuplicatesPage(ctx, after, 0, withdrawn)
		if err != nil {
			return err
		}
		for _, d := range p.Duplicates {
			if err := fn(d); err != nil {
				return err
			}
		}
		if p.Next == nil || len(p.Duplicates) == 0 {
			return nil
		}
		after = *p.Next
	}
}

// LocationPage is one page of GET /api/v1/locations.
type LocationPage struct {
	Location string            `json:"location"` // the URL as given
	Key      string            `json:"key"`      // after scheme-based normalization
	Records  []resolver.Record `json:"records"`
	// Next is the cursor of the next page (pass it as after), nil on the
	// last page.
	Next *int64 `json:"next"`
}

// ByLocationPage returns one page of the records that list rawURL as a
// location, compared after scheme-based normalization as L2Ns compares
// it: those past the cursor after (0 for the first page), in registration
// order, at most limit of them (0: the server's default), fewer when the
// server's page holds as many bytes as it gives at once; active ones only
// unless withdrawn. Anyone may read it. A page with a next cursor must
// hold records and move on past after, so that EachByLocation ends.
func (c *Client) ByLocationPage(ctx context.Context, rawURL string, after int64, limit int, withdrawn bool) (LocationPage, error) {
	q := url.Values{"url": {rawURL}}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if withdrawn {
		q.Set("withdrawn", "true")
	}
	path := withQuery("/api/v1/locations", q)
	var p LocationPage
	if _, err := c.do(ctx, http.MethodGet, path, nil, &p); err != nil {
		return LocationPage{}, err
	}
	// Records carry no ID in the API's JSON: the cursor is the server's
	// word, and it must move on, or EachByLocation would ask for the same
	// page for ever.
	if p.Next != nil && (len(p.Records) == 0 || *p.Next <= after) {
		return LocationPage{}, &resolver.Error{Kind: resolver.KindInternal, Offset: -1, Err: ErrNotAPI,
			Message: fmt.Sprintf("GET %s%s: the next page's cursor %d does not move on from %d (a page of %d records)", c.base, path, *p.Next, after, len(p.Records))}
	}
	return p, nil
}

// EachByLocation calls fn for every record that lists rawURL as a
// location (active ones only unless withdrawn), in registration order, a
// page at a time (ByLocationPage): past the first 100 that L2Ns answers
// with. Anyone may read them.
func (c *Client) EachByLocation(ctx context.Context, rawURL string, withdrawn bool, fn func(resolver.Record) error) error {
	var after int64
	for {
		p, err := c.ByLocationPage(ctx, rawURL, after, 0, withdrawn)
		if err != nil {
			return err
		}
		for _, r := range p.Records {
			if err := fn(r); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		after = *p.Next // past after: ByLocationPage checked it
	}
}

func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
