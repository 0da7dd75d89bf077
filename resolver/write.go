package resolver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/urikit/urikit/internal/errtext"
	"github.com/urikit/urikit/resolver/internal/strictjson"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

// RecordInput is what a maintainer sends to create or replace a record
// (the body of PUT /api/v1/names/{urn}).
type RecordInput struct {
	Aliases   []string        `json:"aliases"`
	Locations []Location      `json:"locations"`
	Metadata  json.RawMessage `json:"metadata"`
	Redirect  int             `json:"redirect" want:"301, 302, 303 or 307"` // 0 means DefaultRedirect
}

// MaxURNBytes bounds a registered name, alias or authority prefix, and
// MaxURLBytes a location's URL. Both are kept in unique indexes, and a
// database bounds one index row (PostgreSQL's btree holds at most 2704
// bytes): a longer value would fail in the store, as an internal error,
// instead of being refused as the caller's mistake. 2 KiB is far beyond
// any identifier in use and beyond what the sitemaps protocol allows a URL.
const (
	MaxURNBytes = 2048
	MaxURLBytes = 2048
)

// maxAttempts bounds the retries of a write that lost a race on a key to
// another process: the second attempt sees the winner's record.
const maxAttempts = 3

// Put creates the record of name, or replaces the record of the live name
// equivalent to it, and reports whether it created one. The spelling first
// registered stays the record's name.
//
// Rules: p must maintain the authority owning name and every alias; a name
// equivalent to a withdrawn record's, or a name or alias equivalent to
// another record's name or (current or retired) alias, is KindConflict
// naming that record. A Put that changes nothing writes nothing.
//
// Every precondition in pre must hold for the record the name currently
// has (see Precondition), else KindPrecondition and nothing is written.
func (s *Service) Put(ctx context.Context, p Principal, name string, in RecordInput, pre ...Precondition) (Record, bool, error) {
	u, err := parseAssignedName("urn", name)
	if err != nil {
		return Record{}, false, err
	}
	if p.Admin {
		return Record{}, false, errorf(KindForbidden, "the admin token manages authorities; names are written with a naming authority's token")
	}
	draft, aliasKeys, err := s.checkInput(u, in)
	if err != nil {
		return Record{}, false, err
	}
	var out Record
	var created bool
	var retired []string
	for attempt := 1; ; attempt++ {
		err = s.store.Update(ctx, func(tx Tx) error {
			if err := stillValid(ctx, tx, p); err != nil {
				return err
			}
			if err := s.mayStoreLocationKeys(ctx, tx); err != nil {
				return err
			}
			var err error
			retired = retired[:0]
			out, created, err = s.put(ctx, tx, p, u, draft, aliasKeys, &retired, time.Time{}, pre)
			if err != nil {
				return err
			}
			// The answer shows the record as a GET does, with the
			// records it replaces (and the ETag that goes with them).
			return setPredecessors(ctx, tx, &out)
		})
		if errors.Is(err, ErrKeyTaken) && attempt < maxAttempts {
			continue // another process registered an equivalent name first
		}
		break
	}
	if err != nil {
		return Record{}, false, storeError(err)
	}
	s.Invalidate(recordKeys(out, u.Key(), append(aliasKeys, retired...))...)
	return out, created, nil
}

// recordKeys lists the keys whose cached lookups a write to r makes stale:
// r's name and aliases, the name as asked, and every key it used to hold
// (an alias the write retired resolves no more).
func recordKeys(r Record, extra string, more []string) []string {
	keys := append([]string{r.Key, extra}, more...)
	for _, a := range r.Aliases {
		if u, err := urn.Parse(a); err == nil {
			keys = append(keys, u.Key())
		}
	}
	return keys
}

// namesRecord reports whether successor is a URN equivalent to r's name
// or to one of its aliases, as lookups match names (urn.URN.Key: RFC 8141
// §3.1, r-, q- and f-components ignored). Named as its own successor,
// a withdrawn record would send clients round in a circle: its 410 would
// link, as rel="successor-version" (RFC 5829), to itself.
func namesRecord(r Record, successor string) bool {
	u, err := urn.Parse(successor)
	if err != nil {
		return false // a URL, or no URN
	}
	k := u.Key()
	for _, key := range recordKeys(r, "", nil) {
		if key == k {
			return true
		}
	}
	return false
}

// NamedInput is one record of a batch for PutMany.
type NamedInput struct {
	URN string `json:"urn"`
	RecordInput
}

// PutResult is what PutMany did with one record: Err is nil when the record
// was written (or was already as given).
type PutResult struct {
	Record  Record
	Created bool
	Err     error
}

// PutMany puts a batch of records in one transaction, which is what makes
// an import fast. A record that breaks a rule gets its error in its result
// and is skipped whole; the others are written. Either every accepted
// record of the batch is durable when PutMany returns nil, or none is.
func (s *Service) PutMany(ctx context.Context, p Principal, batch []NamedInput) ([]PutResult, error) {
	return s.PutPrepared(ctx, s.PrepareMany(p, batch))
}

// PreparedBatch is a PutMany batch after the checks that need no stored
// data (PrepareMany), ready for PutPrepared.
type PreparedBatch struct {
	p     Principal
	batch []NamedInput
	res   []PutResult
	ok    []checkedInput

	turned   chan struct{} // see Turned
	turnOnce sync.Once
}

// PrepareMany does the part of PutMany that reads nothing from the store:
// it parses and checks every record of batch. An import prepares the next
// batch with it while the store writes the one before (PutPrepared), and
// so keeps the order of its batches. batch must not change until
// PutPrepared has returned.
func (s *Service) PrepareMany(p Principal, batch []NamedInput) *PreparedBatch {
	res := make([]PutResult, len(batch))
	ok := make([]checkedInput, len(batch))
	for i, in := range batch {
		u, err := parseAssignedName("urn", in.URN)
		if err == nil && p.Admin {
			err = errorf(KindForbidden, "the admin token manages authorities; names are written with a naming authority's token")
		}
		if err == nil {
			ok[i].draft, ok[i].aliasKeys, err = s.checkInput(u, in.RecordInput)
		}
		if err == nil {
			c := &ok[i]
			c.forms = make([]nameForms, 1, 1+len(c.aliasKeys))
			c.forms[0] = formsOf(u, c.draft.Key) // draft.Key is u.Key()
			for j, a := range c.draft.Aliases {
				c.forms = append(c.forms, formsOf(urn.MustParse(a), c.aliasKeys[j]))
			}
		}
		ok[i].u, res[i].Err = u, err
	}
	return &PreparedBatch{p: p, batch: batch, res: res, ok: ok, turned: make(chan struct{})}
}

// Turned returns a channel that is closed once PutPrepared's transaction
// has taken its turn among the store's writers, found what it read before
// the turn unchanged and stamped its changes, or once PutPrepared has
// returned. On a store that lets a transaction store new records before
// its turn (TurnTaker), an import starts writing its next batch then: that
// batch stores its records while this one appends its history and
// commits, and takes its own turn after this one has committed (unless
// this one, failing later, is written again: batches that share no name
// may then commit in either order).
func (pb *PreparedBatch) Turned() <-chan struct{} { return pb.turned }

func (pb *PreparedBatch) markTurned() { pb.turnOnce.Do(func() { close(pb.turned) }) }

// Shares reports whether the two batches name a key in common: a name or
// an alias of one equivalent to a name or an alias of the other. Batches
// that share none have the same outcome whichever is written first; an
// import writes a batch that shares a key with the one before only once
// that one is done, so that the later row of the file wins.
func (pb *PreparedBatch) Shares(other *PreparedBatch) bool {
	small, large := pb, other
	if len(small.ok) > len(large.ok) {
		small, large = large, small
	}
	keys := make(map[string]bool, len(small.ok))
	for i, c := range small.ok {
		if small.res[i].Err == nil {
			keys[c.draft.Key] = true
			for _, k := range c.aliasKeys {
				keys[k] = true
			}
		}
	}
	for i, c := range large.ok {
		if large.res[i].Err != nil {
			continue
		}
		if keys[c.draft.Key] || slices.ContainsFunc(c.aliasKeys, func(k string) bool { return keys[k] }) {
			return true
		}
	}
	return false
}

// errTurnMoved: what a batch read before its transaction took its turn
// (UpdateBeforeTurn) had changed by then. PutPrepared writes it again,
// taking the turn first.
var errTurnMoved = errors.New("resolver: the directory changed before the batch's turn")

// PutPrepared writes a batch PrepareMany prepared, as PutMany does.
func (s *Service) PutPrepared(ctx context.Context, pb *PreparedBatch) ([]PutResult, error) {
	defer pb.markTurned()
	p, batch, res, ok := pb.p, pb.batch, pb.res, pb.ok
	var out []PutResult
	var retired []string
	write := func(tx Tx, early EarlyTx) error {
		out = slices.Clone(res)
		retired = retired[:0]
		// Every change of the batch is stamped with one time, taken
		// before the batch lets the next one start (markTurned): the
		// next one's stamp is then never earlier than this one's
		// entries, and its check after its turn holds.
		var now time.Time
		var fresh *newRecords
		if early != nil {
			// Before the turn, only the plainly new records' rows; the
			// stamp, the owners and the keys they were checked against
			// are checked again once it is taken. (A new store's first
			// records record the version of their location keys first,
			// which takes the turn.)
			if err := s.mayStoreLocationKeys(ctx, tx); err != nil {
				return err
			}
			now = s.earlyStamp()
			var err error
			if fresh, err = s.insertNew(ctx, early, p, batch, ok, out, now); err != nil {
				return err
			}
			if err := early.TakeTurn(ctx); err != nil {
				return err
			}
		}
		if err := stillValid(ctx, tx, p); err != nil {
			return err
		}
		// (A new store's first records may pin the version of location
		// keys here, an entry of its own: the batch's stamp comes after.)
		if err := s.mayStoreLocationKeys(ctx, tx); err != nil {
			return err
		}
		if early != nil {
			if err := s.stillHold(ctx, tx, p, ok, now, fresh); err != nil {
				return err
			}
		} else {
			var err error
			if now, err = s.stamp(ctx, tx); err != nil {
				return err
			}
		}
		pb.markTurned()
		if btx, isBulk := tx.(BulkTx); isBulk {
			if early == nil {
				var err error
				if fresh, err = s.insertNew(ctx, btx, p, batch, ok, out, now); err != nil {
					return err
				}
			}
			if err := fresh.appendHistory(ctx, btx, out); err != nil {
				return err
			}
		}
		for i := range batch {
			if out[i].Err != nil || fresh.wrote(i) {
				continue
			}
			rec, created, err := s.put(ctx, tx, p, ok[i].u, ok[i].draft, ok[i].aliasKeys, &retired, now, nil)
			var e *Error
			if errors.As(err, &e) {
				out[i].Err = err // broke a rule before writing anything: skip it
				continue
			}
			if err != nil {
				return err
			}
			out[i].Record, out[i].Created = rec, created
		}
		return nil
	}
	tt, early := s.store.(TurnTaker)
	var err error
	for attempt := 1; ; attempt++ {
		if early {
			err = tt.UpdateBeforeTurn(ctx, func(tx EarlyTx) error { return write(tx, tx) })
		} else {
			err = s.store.Update(ctx, func(tx Tx) error { return write(tx, nil) })
		}
		// A key taken by another process in the meantime, or a change
		// before the turn: again, with the turn taken first.
		if (errors.Is(err, ErrKeyTaken) || errors.Is(err, errTurnMoved)) && attempt < maxAttempts {
			early = false
			continue
		}
		break
	}
	if err != nil {
		return nil, storeError(err)
	}
	if s.cache != nil { // (an import has none)
		keys := retired
		for i, r := range out {
			if r.Err == nil {
				keys = append(keys, recordKeys(r.Record, ok[i].u.Key(), ok[i].aliasKeys)...)
			}
		}
		if len(keys) > 0 {
			s.Invalidate(keys...)
		}
	}
	return out, nil
}

// checkedInput is one record of a PutMany batch after checkInput.
type checkedInput struct {
	u         urn.URN
	draft     Record
	aliasKeys []string
	forms     []nameForms // of the name and the aliases, for mayWriteForms
}

// newRecords are the plainly new records of a batch, which insertNew
// stores through a BulkTx's bulk methods and appendHistory gives their
// history: none of their keys is stored, and none is a key of an earlier
// record of the batch (that one may create it). Writing them before the
// others in the batch changes nothing but the order of IDs and history
// entries: their keys are disjoint from every other record's.
type newRecords struct {
	now      time.Time   // the records' Created and Updated, and their entries' Time
	done     []bool      // by place in the batch: stored, or refused by its owner rules
	checked  []int       // the places whose owner rules insertNew applied
	verdicts []verdict   // what they said, for each of checked
	idx      []int       // the places of recs
	recs     []*Record   // stored
	actors   []Principal // on whose behalf each was written
	datas    [][]byte    // the history's data of each
}

// verdict is what mayWriteForms said of a record.
type verdict struct {
	actor Principal
	err   string
}

func judge(actor Principal, err error) verdict {
	if err != nil {
		return verdict{err: err.Error()}
	}
	return verdict{actor: actor}
}

// wrote reports whether the records at place i of the batch is settled:
// stored by insertNew, or refused by its rules.
func (n *newRecords) wrote(i int) bool { return n != nil && n.done[i] }

// insertNew stores the plainly new records of a batch (see newRecords)
// with tx's bulk methods, stamped now, and fills in out for those their
// owner rules refuse.
func (s *Service) insertNew(ctx context.Context, tx BulkTx, p Principal, batch []NamedInput, in []checkedInput, out []PutResult, now time.Time) (*newRecords, error) {
	all := make([]string, 0, len(batch))
	for i := range batch {
		if out[i].Err == nil {
			all = append(append(all, in[i].draft.Key), in[i].aliasKeys...) // draft.Key is u.Key()
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	taken, err := tx.TakenKeys(ctx, all)
	if err != nil {
		return nil, err
	}
	auths, err := tx.Authorities(ctx)
	if err != nil {
		return nil, err
	}
	n := &newRecords{now: now, done: make([]bool, len(batch))}
	seen := make(map[string]bool, len(all))
	n.recs = make([]*Record, 0, len(batch))
	keys := make([][]Key, 0, len(batch))
	for i := range batch {
		if out[i].Err != nil {
			continue
		}
		c := in[i]
		ks := append([]string{c.draft.Key}, c.aliasKeys...)
		fresh := true
		for _, k := range ks {
			fresh = fresh && !taken[k] && !seen[k]
			seen[k] = true
		}
		if !fresh {
			continue
		}
		actor, err := mayWriteForms(auths, p, c.forms)
		n.checked, n.verdicts = append(n.checked, i), append(n.verdicts, judge(actor, err))
		if err != nil {
			out[i].Err, n.done[i] = err, true // broke a rule: skipped, as put would
			continue
		}
		rec := c.draft
		rec.AuthorityID, rec.Created, rec.Updated = actor.AuthorityID, now, now
		rk := []Key{{Key: rec.Key, Spelling: rec.URN, Role: RoleName, Version: urn.KeyVersion}}
		for j, k := range c.aliasKeys {
			rk = append(rk, Key{Key: k, Spelling: rec.Aliases[j], Role: RoleAlias, Version: urn.KeyVersion})
		}
		n.recs, keys, n.idx, n.actors = append(n.recs, &rec), append(keys, rk), append(n.idx, i), append(n.actors, actor)
	}
	if len(n.recs) == 0 {
		return n, nil
	}
	// The history's data, which holds no ID, is encoded while the store
	// inserts the records (mostly a wait on a server, or the store's work
	// on another processor): from copies, since InsertRecords sets the IDs.
	n.datas = make([][]byte, len(n.recs))
	marshaled := make(chan error, 1)
	snap := make([]Record, len(n.recs))
	for j, rec := range n.recs {
		snap[j] = *rec
	}
	go func() {
		for j := range snap {
			var err error
			if n.datas[j], err = snap[j].MarshalJSON(); err != nil { // = json.Marshal(rec), without re-compacting its output
				marshaled <- err
				return
			}
		}
		marshaled <- nil
	}()
	err = tx.InsertRecords(ctx, n.recs, keys)
	if merr := <-marshaled; err == nil {
		err = merr
	}
	if err != nil {
		return nil, err
	}
	for _, i := range n.idx {
		n.done[i] = true
	}
	return n, nil
}

// stillHold checks, once an early batch's transaction has taken its
// turn, what it read before: the history has no entry later than the
// batch's stamp, now (entries' times never go back, and a record's
// Updated is its entry's Time), and the owner rules say of each record
// insertNew stored or refused what they said then. Otherwise
// errTurnMoved. The keys need no check: the store's unique index refused
// any that another writer stored in between.
func (s *Service) stillHold(ctx context.Context, tx Tx, p Principal, in []checkedInput, now time.Time, n *newRecords) error {
	head, err := tx.Head(ctx)
	if err != nil {
		return err
	}
	if head.Time.After(now) {
		return errTurnMoved
	}
	if n == nil {
		return nil
	}
	auths, err := tx.Authorities(ctx)
	if err != nil {
		return err
	}
	for j, i := range n.checked {
		if judge(mayWriteForms(auths, p, in[i].forms)) != n.verdicts[j] {
			return errTurnMoved
		}
	}
	return nil
}

// appendHistory appends the history of the records insertNew stored, and
// fills in their results.
func (n *newRecords) appendHistory(ctx context.Context, tx BulkTx, out []PutResult) error {
	if n == nil || len(n.recs) == 0 {
		return nil
	}
	entries := make([]*Entry, len(n.recs))
	for j, rec := range n.recs {
		entries[j] = &Entry{Time: n.now, Action: ActionNameCreate, Subject: rec.URN, RecordID: rec.ID,
			AuthorityID: rec.AuthorityID, Actor: n.actors[j].Actor(), Data: n.datas[j]}
	}
	if err := tx.AppendAll(ctx, entries); err != nil {
		return err
	}
	for j, i := range n.idx {
		out[i].Record, out[i].Created = *n.recs[j], true
	}
	return nil
}

// namespaceInvalid is the KindInvalid error of a name, in field, that
// breaks its namespace's own syntax (urn.URN.Validate). The message does
// not start as urn.NamespaceError's does, with "urn:NID:": after the
// field's name ("urn: urn:isbn: an ISBN has…") that read as a stutter.
func namespaceInvalid(field string, err error) *Error {
	var ne *urn.NamespaceError
	if errors.As(err, &ne) {
		return invalid(field, -1, "the NSS %q breaks the rules of namespace %s (%s): %s", ne.NSS, ne.NID, ne.Ref, ne.Reason)
	}
	return invalid(field, -1, "%v", err)
}

// checkInput validates everything about a Put that needs no stored data,
// and returns the record it describes and its aliases' keys.
func (s *Service) checkInput(u urn.URN, in RecordInput) (Record, []string, error) {
	if err := u.Validate(); err != nil {
		return Record{}, nil, namespaceInvalid("urn", err)
	}
	rec := Record{URN: u.String(), Key: u.Key(), Status: Active, Redirect: in.Redirect}
	switch rec.Redirect {
	case 0:
		rec.Redirect = DefaultRedirect
	case 301, 302, 303, 307:
	default:
		return Record{}, nil, invalid("redirect", -1, "must be 301, 302, 303 or 307, not %d", in.Redirect)
	}

	if len(in.Aliases) > s.opts.MaxAliases {
		return Record{}, nil, invalid("aliases", -1, "at most %d aliases", s.opts.MaxAliases)
	}
	keys := []string{rec.Key}
	var aliasKeys []string
	for i, a := range in.Aliases {
		field := fmt.Sprintf("aliases[%d]", i)
		au, err := parseAssignedName(field, a)
		if err != nil {
			return Record{}, nil, err
		}
		if err := au.Validate(); err != nil {
			return Record{}, nil, namespaceInvalid(field, err)
		}
		k := au.Key()
		if slices.Contains(keys, k) {
			return Record{}, nil, invalid(field, -1, "%s is equivalent to the name or to another alias of this record", a)
		}
		keys = append(keys, k)
		aliasKeys = append(aliasKeys, k)
		rec.Aliases = append(rec.Aliases, a)
	}

	if len(in.Locations) == 0 {
		return Record{}, nil, invalid("locations", -1, "a record needs at least one location")
	}
	if len(in.Locations) > s.opts.MaxLocations {
		return Record{}, nil, invalid("locations", -1, "at most %d locations", s.opts.MaxLocations)
	}
	for i, l := range in.Locations {
		field := fmt.Sprintf("locations[%d]", i)
		if len(l.URL) > MaxURLBytes {
			return Record{}, nil, invalid(field+".url", MaxURLBytes, "a location's URL has at most %d bytes", MaxURLBytes)
		}
		loc, key, err := s.locationKey(field+".url", l.URL)
		if err != nil {
			return Record{}, nil, err
		}
		l.URL, l.Key = loc, key
		if l.Type != "" {
			if len(l.Type) > maxLabelBytes {
				return Record{}, nil, invalid(field+".type", maxLabelBytes, "a media type has at most %d bytes", maxLabelBytes)
			}
			mt, _, err := mime.ParseMediaType(l.Type)
			if err != nil {
				return Record{}, nil, invalid(field+".type", -1, "%s is not a media type: %s", errtext.Excerpt(l.Type, 0, 64), mediaTypeFault(err))
			}
			// ParseMediaType also reads Content-Disposition values, which
			// have no subtype; a media type has one (RFC 9110 §8.3.1).
			if !strings.Contains(mt, "/") {
				return Record{}, nil, invalid(field+".type", -1, "%s is not a media type: %s", errtext.Excerpt(l.Type, 0, 64), mediaTypeFault(errors.New("mime: expected slash after first token")))
			}
			if i := strings.IndexByte(l.Type, 0); i >= 0 {
				return Record{}, nil, invalid(field+".type", i, "not a media type: NUL in a parameter")
			}
		}
		if len(l.Label) > maxLabelBytes || !isText(l.Label) {
			return Record{}, nil, invalid(field+".label", -1, "a label is UTF-8 text of at most %d bytes, without NUL", maxLabelBytes)
		}
		rec.Locations = append(rec.Locations, l)
	}

	meta, err := checkMetadata(in.Metadata, s.opts.MaxMetadataBytes)
	if err != nil {
		return Record{}, nil, err
	}
	rec.Metadata = meta
	return rec, aliasKeys, nil
}

// mediaTypeFault says in words what mime.ParseMediaType found wrong with a
// media type (RFC 9110 §8.3.1: type "/" subtype, then parameters
// ";name=value"); its errors name the parser's tokens instead.
func mediaTypeFault(err error) string {
	if errors.Is(err, mime.ErrInvalidMediaParameter) {
		return `a parameter is not name=value (after ";")`
	}
	switch msg := err.Error(); msg {
	case "mime: no media type":
		return "it does not begin with a type (a media type is type/subtype, such as text/html)"
	case "mime: expected slash after first token":
		return `the type is not followed by "/" and a subtype (a media type is type/subtype, such as text/html)`
	case "mime: expected token after slash":
		return `no subtype follows the "/" (a media type is type/subtype, such as text/html)`
	case "mime: unexpected content after media subtype":
		return `something other than a parameter (";name=value") follows the subtype`
	case "mime: duplicate parameter name":
		return "a parameter is given twice, with different values"
	default:
		return strings.TrimPrefix(msg, "mime: ")
	}
}

// isText reports whether s is UTF-8 text a database's text type stores:
// PostgreSQL's text cannot hold NUL, so no backend is given one.
func isText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// checkMetadata accepts a JSON object (or nothing) and returns it compacted.
// An error's offset is into m as given.
func checkMetadata(m json.RawMessage, limit int) (json.RawMessage, error) {
	// JSON text is UTF-8 (RFC 8259 §8.1), and Compact does not look at the
	// bytes inside strings.
	if i := strictjson.InvalidUTF8(m); i >= 0 {
		return nil, invalid("metadata", i, "not UTF-8")
	}
	raw := m
	m = bytes.TrimSpace(m)
	if len(m) == 0 || string(m) == "null" {
		return json.RawMessage("{}"), nil
	}
	if m[0] != '{' {
		return nil, invalid("metadata", -1, "must be a JSON object")
	}
	// Before Compact, which refuses more than 10000 levels as a syntax
	// error.
	if i := strictjson.TooDeep(raw, MaxMetadataDepth); i >= 0 {
		return nil, invalid("metadata", i, "nested more than %d levels deep (the metadata object is the first level, each object or array inside another one more)", MaxMetadataDepth)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, m); err != nil {
		return nil, invalid("metadata", -1, "not valid JSON: %v", err)
	}
	if b.Len() > limit {
		return nil, invalid("metadata", -1, "at most %d bytes of JSON", limit)
	}
	// A name given twice would be read as one value by some readers and
	// as another by others (RFC 8259 §4); the CSL output drops such a
	// member for that reason. Refused at every depth.
	var ce *strictjson.Error
	if err := strictjson.Unique(raw, "metadata"); errors.As(err, &ce) {
		return nil, invalid("metadata", ce.Offset, "%s", ce.Describe("metadata"))
	} else if err != nil {
		return nil, invalid("metadata", -1, "not valid JSON: %v", err)
	}
	return b.Bytes(), nil
}

// parseLocation checks that raw is an absolute URI (RFC 3986 §4.3, a
// fragment allowed) that may be a location.
func parseLocation(field, raw string) (uri.URI, error) {
	u, err := uri.Parse(raw)
	if err != nil {
		off := 0
		var ue *uri.Error
		if errors.As(err, &ue) {
			off = ue.Offset
		}
		reason := err.Error()
		if ue != nil {
			reason = ue.Reason
		}
		return uri.URI{}, invalid(field, off, "not an absolute URI: %s", reason)
	}
	if isScriptScheme(u.Scheme()) {
		return uri.URI{}, invalid(field, 0, "the %s: scheme is refused: such a URI is content that a browser runs or renders, "+
			"not a place to fetch from, and the resolver would hand it out under its own origin (RFC 3986 §7, RFC 2483 §4.1)",
			strings.ToLower(u.Scheme()))
	}
	return u, nil
}

// isScriptScheme reports whether a URI with this scheme is content rather
// than a place: javascript: and vbscript: are code that a browser runs in
// the context of the page or redirect that led to it, and data: (RFC 2397)
// is the content itself — text/html or image/svg+xml with scripts in it —
// for which RFC 2397 §6 leaves the danger to the media type's handler. A
// resolver hands its locations out as redirects (I2L, N2L), links on its
// pages and text/uri-list lists: one of these would be script injected
// through the resolver's trusted origin, which RFC 3986 §7 ("care must be
// taken ... to prevent that data from causing unintended access") and RFC
// 2483 §4.1 (a malicious entry in the resolver's database) warn against.
// Schemes are case-insensitive (RFC 3986 §3.1): JavaScript: is refused too.
//
// Only writes are checked (Put, PutMany, Withdraw's successor). Records
// stored before this rule keep what they hold and resolve as they did: the
// history's hash chain covers the snapshot of every record, so rewriting
// them in place would make the directory fail its own verification, and
// dropping a location would change what a name resolves to behind its
// maintainer's back. Their maintainers replace such a location at their
// next edit, which this check then requires.
func isScriptScheme(scheme string) bool {
	for _, s := range [...]string{"javascript", "vbscript", "data"} {
		if strings.EqualFold(scheme, s) {
			return true
		}
	}
	return false
}

// parseAssignedName parses a name to register: a URN's assigned name, with
// no r-, q- or f-component (those belong to requests, not to names).
func parseAssignedName(field, name string) (urn.URN, error) {
	if len(name) > MaxURNBytes {
		return urn.URN{}, invalid(field, MaxURNBytes, "a registered name has at most %d bytes", MaxURNBytes)
	}
	u, err := ParseName(field, name)
	if err != nil {
		return u, err
	}
	if len(u.AssignedName()) != len(name) {
		return urn.URN{}, invalid(field, len(u.AssignedName()), "a registered name has no ?+, ?= or # component")
	}
	return u, nil
}

// ownerOf returns the authority whose prefix the name lies under.
func ownerOf(auths []Authority, canonical string) (Authority, bool) {
	best, bestLen := Authority{}, -1
	for _, a := range auths {
		for _, p := range a.Prefixes {
			if HasPrefix(canonical, p) && len(p) > bestLen {
				best, bestLen = a, len(p)
			}
		}
	}
	return best, bestLen >= 0
}

// mayWrite checks that p maintains the authority owning every one of names
// (all under one authority), and returns p acting for that authority: the
// operator acts for whichever authority owns the names.
//
// A name belongs to the authority whose prefix its canonical lexical form
// lies under. Prefixes are compared lexically, but names are matched by
// their namespace's equivalence too, so a name may also be equivalent to
// names under another authority's prefix: urn:nbn:DE:101-x is
// urn:nbn:de:101-x (RFC 8458 §4.3 makes the NBN prefix case-insensitive),
// and urn:isbn:0-395-36341-1 is urn:isbn:9780395363416. Its key (the
// namespace's normal form) is what lookups find, so when the key lies
// under another authority's prefix the name is that authority's too, and
// nobody else may create it.
func mayWrite(auths []Authority, p Principal, names ...urn.URN) (Principal, error) {
	forms := make([]nameForms, len(names))
	for i, n := range names {
		forms[i] = formsOf(n, n.Key())
	}
	return mayWriteForms(auths, p, forms)
}

// nameForms are the forms of a name that mayWrite compares.
type nameForms struct {
	assigned, canonical, key string
}

// formsOf gives the forms of n, whose key is key.
func formsOf(n urn.URN, key string) nameForms {
	return nameForms{n.AssignedName(), n.CanonicalString(), key}
}

// mayWriteForms is mayWrite on names whose forms are computed already
// (PrepareMany does it outside the transaction).
func mayWriteForms(auths []Authority, p Principal, names []nameForms) (Principal, error) {
	for i, n := range names {
		a, ok := ownerOf(auths, n.canonical)
		if !ok {
			// Under no prefix as written, but equivalent by its
			// namespace's rules to names under one (urn:nbn:DE:101-1 is
			// urn:nbn:de:101-1, RFC 8458 §4.3; urn:isbn:9780306406157 is
			// an ISBN under urn:isbn:978-0-): that authority's.
			a, ok = keyOwnerOf(auths, n.key)
		}
		if !ok {
			return p, errorf(KindForbidden, "no naming authority owns %s", n.assigned)
		}
		if p.Operator && i == 0 {
			p.AuthorityID = a.ID
		}
		if a.ID != p.AuthorityID {
			return p, errorf(KindForbidden, "%s belongs to another naming authority", n.assigned)
		}
		if otherKeyOwner(auths, a, n) {
			return p, errorf(KindForbidden, "%s is equivalent to %s, which belongs to another naming authority", n.assigned, n.key)
		}
	}
	return p, nil
}

// keyOwnerOf returns the authority under one of whose prefixes the names
// equivalent to key lie (urn.KeyPrefixes), the longest match winning.
func keyOwnerOf(auths []Authority, key string) (Authority, bool) {
	best, bestLen := Authority{}, -1
	for _, a := range auths {
		for _, p := range a.Prefixes {
			if !sameNamespace(key, p) {
				continue
			}
			if n, ok := underKeyPrefix(key, p); ok && n > bestLen {
				best, bestLen = a, n
			}
		}
	}
	return best, bestLen >= 0
}

// otherKeyOwner reports whether an authority other than a owns names
// equivalent to n: one whose prefix the key lies under as written, or,
// when no prefix of a's covers the key by a's namespace rules, one whose
// prefixes do. CreateAuthority refuses prefixes that overlap this way
// (PrefixesOverlap); stores from before it did may still hold such pairs.
func otherKeyOwner(auths []Authority, a Authority, n nameForms) bool {
	if n.key != n.canonical {
		if b, ok := ownerOf(auths, n.key); ok && b.ID != a.ID {
			return true
		}
	}
	for _, p := range a.Prefixes {
		if strings.HasPrefix(n.key, p) {
			return false
		}
		if !sameNamespace(n.key, p) {
			continue
		}
		if _, ok := underKeyPrefix(n.key, p); ok {
			return false
		}
	}
	b, ok := keyOwnerOf(auths, n.key)
	return ok && b.ID != a.ID
}

// sameNamespace reports whether the key and the canonical prefix p share
// their "urn:" NID ":", a cheap test before urn.KeyPrefixes.
func sameNamespace(key, p string) bool {
	i := strings.IndexByte(p[min(4, len(p)):], ':')
	if i < 0 {
		return strings.HasPrefix(key, p+":")
	}
	return strings.HasPrefix(key, p[:4+i+1])
}

// stillValid checks, in the transaction that writes, that the token p
// authenticated with is still valid. Authenticate ran before the
// transaction began: a revocation or a transfer committed in between must
// stop the write, not let it land after the revocation was acknowledged.
func stillValid(ctx context.Context, tx Tx, p Principal) error {
	if p.TokenID == 0 {
		return nil // the admin and the operator hold no revocable token
	}
	toks, err := tx.Tokens(ctx, p.AuthorityID)
	if err != nil {
		return err
	}
	for _, t := range toks {
		if t.ID == p.TokenID && t.Active() {
			return nil
		}
	}
	return errorf(KindUnauthorized, "this token was revoked")
}

// put writes one record in tx; it appends to retired the keys of aliases
// the record no longer lists. The change is stamped at, or, when at is
// zero, now (Service.stamp). pre is checked against the record read here.
func (s *Service) put(ctx context.Context, tx Tx, p Principal, u urn.URN, draft Record, aliasKeys []string, retired *[]string, at time.Time, pre []Precondition) (Record, bool, error) {
	auths, err := tx.Authorities(ctx)
	if err != nil {
		return Record{}, false, err
	}
	old, role, err := tx.RecordByKey(ctx, draft.Key)
	exists := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Record{}, false, err
	}
	var names []urn.URN
	if exists && role == RoleName && (p.Operator || old.AuthorityID == p.AuthorityID) {
		// The name is an equivalent spelling of a record p's authority
		// holds: the record says whose it is, whatever prefix this
		// spelling lies under lexically (urn:nbn:DE:... for urn:nbn:de:,
		// an ISBN-10 for a name under an ISBN-13 prefix).
		p.AuthorityID = old.AuthorityID
	} else {
		names = append(names, u)
	}
	for _, a := range draft.Aliases {
		names = append(names, urn.MustParse(a))
	}
	p, err = mayWrite(auths, p, names...)
	if err != nil {
		return Record{}, false, err
	}
	if exists {
		switch {
		case role == RoleRetired:
			return Record{}, false, conflict(old, "%s was an alias of %s, which dropped it; it stays reserved to that record", u.AssignedName(), old.URN)
		case role != RoleName:
			return Record{}, false, conflict(old, "%s is an alias of %s", u.AssignedName(), old.URN)
		case old.Status == Withdrawn:
			return Record{}, false, conflict(old, "%s was withdrawn; a name is never reused", old.URN)
		case old.AuthorityID != p.AuthorityID:
			return Record{}, false, errorf(KindForbidden, "%s belongs to another naming authority", old.URN)
		}
	}
	// The preconditions come after the answers that do not depend on the
	// body (403, and 409 for a name that is an alias or was withdrawn),
	// which take precedence (RFC 9110 §13.2.1); here the name has its own
	// active record, old, or none.
	var current *Record
	if exists {
		// The conditions compare the entity-tag of the record as a GET
		// shows it, with its predecessors (Record.ETag); only the copy
		// they read has them, not what is stored or logged.
		cur := old
		if len(pre) > 0 {
			if err = setPredecessors(ctx, tx, &cur); err != nil {
				return Record{}, false, err
			}
		}
		current = &cur
	}
	if err := checkPreconditions(pre, u.AssignedName(), current); err != nil {
		return Record{}, false, err
	}
	for i, k := range aliasKeys {
		other, _, err := tx.RecordByKey(ctx, k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Record{}, false, err
		}
		if !exists || other.ID != old.ID {
			return Record{}, false, conflict(other, "alias %s is already reserved to %s", draft.Aliases[i], other.URN)
		}
	}

	if at.IsZero() {
		if at, err = s.stamp(ctx, tx); err != nil {
			return Record{}, false, err
		}
	}
	now := at
	rec := draft
	rec.AuthorityID = p.AuthorityID
	action := ActionNameCreate
	if exists {
		if sameContent(old, draft) {
			return old, false, nil // idempotent: nothing to write
		}
		rec.ID, rec.URN, rec.Key, rec.Created = old.ID, old.URN, old.Key, old.Created
		rec.Updated = now
		action = ActionNameUpdate
		if err := tx.UpdateRecord(ctx, rec); err != nil {
			return Record{}, false, err
		}
	} else {
		rec.Created, rec.Updated = now, now
		if err := tx.InsertRecord(ctx, &rec); err != nil {
			return Record{}, false, err
		}
		if err := tx.PutKey(ctx, Key{Key: rec.Key, Spelling: rec.URN, RecordID: rec.ID, Role: RoleName, Version: urn.KeyVersion}); err != nil {
			return Record{}, false, err
		}
	}
	for i, k := range aliasKeys {
		if err := tx.PutKey(ctx, Key{Key: k, Spelling: rec.Aliases[i], RecordID: rec.ID, Role: RoleAlias, Version: urn.KeyVersion}); err != nil {
			return Record{}, false, err
		}
	}
	if exists {
		// Aliases the record no longer lists stay reserved to it.
		keys, err := tx.Keys(ctx, rec.ID)
		if err != nil {
			return Record{}, false, err
		}
		for _, k := range keys {
			if k.Role == RoleAlias && !slices.Contains(aliasKeys, k.Key) {
				k.Role = RoleRetired
				if err := tx.PutKey(ctx, k); err != nil {
					return Record{}, false, err
				}
				*retired = append(*retired, k.Key)
			}
		}
	}
	if err := appendRecord(ctx, tx, p, action, rec, now); err != nil {
		return Record{}, false, err
	}
	return rec, !exists, nil
}

// sameContent reports whether a stored record already says what draft says.
func sameContent(old, draft Record) bool {
	if old.Redirect != draft.Redirect || !bytes.Equal(old.Metadata, draft.Metadata) ||
		!slices.Equal(old.Aliases, draft.Aliases) || len(old.Locations) != len(draft.Locations) {
		return false
	}
	for i := range old.Locations {
		a, b := old.Locations[i], draft.Locations[i]
		if a.URL != b.URL || a.Type != b.Type || a.Label != b.Label {
			return false
		}
	}
	return true
}

func conflict(with Record, format string, args ...any) *Error {
	e := errorf(KindConflict, format, args...)
	e.Record = with.URN
	return e
}

func appendRecord(ctx context.Context, tx Tx, p Principal, action Action, rec Record, at time.Time) error {
	// MarshalJSON's output is json.Marshal's own (compact, HTML-escaped):
	// json.Marshal(rec) would give the same bytes after checking and
	// compacting them a second time, a tenth of an import's CPU.
	data, err := rec.MarshalJSON()
	if err != nil {
		return err
	}
	return tx.Append(ctx, &Entry{Time: at, Action: action, Subject: rec.URN, RecordID: rec.ID,
		AuthorityID: rec.AuthorityID, Actor: p.Actor(), Data: data})
}

// Withdraw withdraws the record of name for ever: it answers 410 Gone from
// now on, pointing at successor when one is given, and its name and aliases
// are never given to another record. Withdrawing a withdrawn record again
// replaces its reason and successor (a history entry records the change),
// and changes nothing when they are the same. Every precondition in pre
// must hold for the record, as for Put.
func (s *Service) Withdraw(ctx context.Context, p Principal, name, reason, successor string, pre ...Precondition) (Record, error) {
	u, err := parseAssignedName("urn", name)
	if err != nil {
		return Record{}, err
	}
	if successor != "" {
		// Bounded as a location is: it goes out in the Link header of
		// every answer about the name (RFC 8288), for ever.
		if len(successor) > MaxURLBytes {
			return Record{}, invalid("successor", MaxURLBytes, "a successor has at most %d bytes", MaxURLBytes)
		}
		if _, err := parseLocation("successor", successor); err != nil {
			return Record{}, err
		}
	}
	if len(reason) > maxLabelBytes || !isText(reason) {
		return Record{}, invalid("reason", -1, "a reason is UTF-8 text of at most %d bytes, without NUL", maxLabelBytes)
	}
	if p.Admin {
		return Record{}, errorf(KindForbidden, "the admin token manages authorities; names are withdrawn with a naming authority's token")
	}
	var out Record
	err = s.store.Update(ctx, func(tx Tx) error {
		if err := stillValid(ctx, tx, p); err != nil {
			return err
		}
		p := p // fn may run again (Store.Update): it acts on its own copy
		auths, err := tx.Authorities(ctx)
		if err != nil {
			return err
		}
		rec, role, err := tx.RecordByKey(ctx, u.Key())
		found := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if found && role == RoleName && (p.Operator || rec.AuthorityID == p.AuthorityID) {
			p.AuthorityID = rec.AuthorityID // its own record, by any equivalent spelling (see put)
		} else if p, err = mayWrite(auths, p, u); err != nil {
			return err
		}
		if !found {
			return &Error{Kind: KindNotFound, Message: "no record for " + u.AssignedName(), Offset: -1}
		}
		if role != RoleName {
			return conflict(rec, "%s is an alias of %s: withdraw that name", u.AssignedName(), rec.URN)
		}
		if rec.AuthorityID != p.AuthorityID {
			return errorf(KindForbidden, "%s belongs to another naming authority", rec.URN)
		}
		// The request's content is checked before the conditions, here
		// as in Put (whose checkInput runs before its transaction): a
		// successor naming the record itself is 400 whatever If-Match
		// says. It needs the record's aliases, so it is checked here.
		if namesRecord(rec, successor) {
			return invalid("successor", -1, "%s names %s itself (its name or an alias, by the equivalence lookups use): a successor is another resource", successor, rec.URN)
		}
		// After 404, 409 and 403, which take precedence (RFC 9110 §13.2.1).
		// The entity-tag is that of the record as a GET shows it, with
		// its predecessors: a copy has them, not what is stored or logged.
		cur := rec
		if err := setPredecessors(ctx, tx, &cur); err != nil {
			return err
		}
		if err := checkPreconditions(pre, u.AssignedName(), &cur); err != nil {
			return err
		}
		// Withdrawing a withdrawn record again restates its notice: the
		// same reason and successor change nothing (a retried request);
		// others replace them. A successor is often known only after the
		// withdrawal, and a mistyped one must be correctable: the name
		// still answers 410 and is never reused, and the history keeps
		// every notice it had.
		if rec.Status == Withdrawn && rec.Reason == reason && rec.Successor == successor {
			out = cur
			return nil
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		// The successor's key is stored with it, and replaced with it
		// when a notice is restated: the predecessor link moves.
		rec.Status, rec.Reason, rec.Updated = Withdrawn, reason, now
		rec.setSuccessor(successor)
		if err := tx.UpdateRecord(ctx, rec); err != nil {
			return err
		}
		out = rec
		out.Predecessors, out.MorePredecessors = cur.Predecessors, cur.MorePredecessors
		return appendRecord(ctx, tx, p, ActionNameWithdraw, rec, now)
	})
	if err != nil {
		return Record{}, storeError(err)
	}
	s.Invalidate(recordKeys(out, u.Key(), nil)...)
	return out, nil
}
