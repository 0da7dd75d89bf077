package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urikit/urikit/urn"
)

// Options configure a Service. The zero value is usable.
type Options struct {
	// AdminToken, when set, is the admin token (URIKIT_ADMIN_TOKEN).
	// Otherwise the admin token is the one EnsureAdminToken generated and
	// whose hash the store keeps.
	AdminToken string
	// Clock returns the time; time.Now when nil. Tests set it.
	Clock func() time.Time
	// CacheSize bounds the cache of hot lookups, in entries: 0 means
	// DefaultCacheSize, a negative number turns the cache off.
	CacheSize int
	// Limits on what one record holds; 0 means the default.
	MaxAliases, MaxLocations, MaxMetadataBytes int
}

// Defaults for Options.
const (
	DefaultCacheSize        = 1 << 16
	DefaultMaxAliases       = 64
	DefaultMaxLocations     = 64
	DefaultMaxMetadataBytes = 16 << 10
	maxLabelBytes           = 1024
)

// MaxMetadataDepth bounds how deep a record's metadata nests: the metadata
// object is the first level, and each object or array inside another one
// more. Metadata is a small JSON object of bibliographic data: CSL-JSON's
// deepest member ("issued":{"date-parts":[[2024,5,1]]}) is four levels
// down, DataCite's JSON (creators[].nameIdentifiers[]) five. 32 leaves room
// for any such schema, while what is nested thousands deep in a few
// kilobytes is refused: each reader that walks or indents the value level
// by level (the pages, a client's parser) would be handed it.
const MaxMetadataDepth = 32

// AdminTokenSetting names the setting that holds the SHA-256 of a
// generated admin token, in hex.
const AdminTokenSetting = "admin-token-sha256"

// adminEnvironmentSetting names the setting that tells EnsureAdminToken
// it recorded an admin.environment entry already.
const adminEnvironmentSetting = "admin-token-environment-recorded"

// ErrAdminTokenReplaced is returned by EnsureAdminToken when Options give
// an admin token that a rotation replaced (a stale URIKIT_ADMIN_TOKEN):
// the store keeps the current one, which every other instance goes on
// taking; this Service takes the one its Options give, as it always does.
// The caller warns rather than stops: a server that no longer starts is
// worse than one whose operator is told.
var ErrAdminTokenReplaced = errors.New("URIKIT_ADMIN_TOKEN is an admin token that a rotation replaced: " +
	"the store keeps the current one (set the current admin token, or unset the variable to use the stored one)")

// adminRetiredSetting names the setting that holds the fingerprints
// (tokenFingerprint) of the admin token hashes rotation replaced, space
// separated: an instance started with a stale URIKIT_ADMIN_TOKEN would
// otherwise take the replaced token for a new one and store it back, for
// every instance on the store.
const adminRetiredSetting = "admin-token-retired-fingerprints"

// Service is the resolver's policy: what a name resolves to, who may change
// what, and the rules a change must follow. It is safe for concurrent use.
type Service struct {
	store  Store
	opts   Options
	cache  *lookupCache
	shared Shared        // store, when other processes write to it too
	loc    locationRules // how location keys are computed

	stampFloor atomic.Int64 // the latest stamp given, in Unix nanoseconds
}

// New returns a Service over store.
func New(store Store, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.CacheSize == 0 {
		opts.CacheSize = DefaultCacheSize
	}
	if opts.MaxAliases <= 0 {
		opts.MaxAliases = DefaultMaxAliases
	}
	if opts.MaxLocations <= 0 {
		opts.MaxLocations = DefaultMaxLocations
	}
	if opts.MaxMetadataBytes <= 0 {
		opts.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	s := &Service{store: store, opts: opts, cache: newLookupCache(opts.CacheSize), loc: thisBuildsLocationRules}
	if sh, ok := store.(Shared); ok && s.cache != nil {
		s.shared = sh
		sh.Watch(s.Invalidate)
	}
	return s
}

// Store returns the store the service uses.
func (s *Service) Store() Store { return s.store }

func (s *Service) now() time.Time {
	return s.opts.Clock().UTC().Truncate(time.Microsecond)
}

// stamp returns the time of a change written in tx: the clock's time, or
// the time of the history's last entry when the clock reads earlier.
// As-of lookups (?as-of=, Accept-Datetime) pick a record's entry by time,
// which only works when times never go backwards in Seq order; yet several
// instances on one database each read their own clock, and one may run
// behind another, or be stepped back. tx holds the lock that serializes
// appends (Store.Update), so the head it reads is the entry this change
// follows, and max(now, head) keeps the order whoever writes. The record's
// Created/Updated take the same time, so that its snapshot in the history
// agrees with the entry's Time.
func (s *Service) stamp(ctx context.Context, tx Tx) (time.Time, error) {
	now := s.now()
	head, err := tx.Head(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if now.Before(head.Time) {
		now = head.Time.UTC()
	}
	s.raiseStampFloor(now)
	return now, nil
}

// earlyStamp is the stamp of a batch written before its transaction's
// turn (TurnTaker), when the head's time cannot be read yet: now, or the
// latest stamp this Service gave, if that is later (its clock behind a
// head time that it met). The check after the turn (stillHold) holds the
// stamp to the head's time.
func (s *Service) earlyStamp() time.Time {
	now := s.now()
	if floor := time.Unix(0, s.stampFloor.Load()).UTC(); now.Before(floor) {
		now = floor
	}
	s.raiseStampFloor(now)
	return now
}

func (s *Service) raiseStampFloor(t time.Time) {
	n := t.UnixNano()
	for {
		old := s.stampFloor.Load()
		if n <= old || s.stampFloor.CompareAndSwap(old, n) {
			return
		}
	}
}

// Invalidate drops cached lookups of the given keys; a store that learns of
// other processes' writes (PostgreSQL's LISTEN/NOTIFY) calls it. With no
// keys it drops every cached lookup.
func (s *Service) Invalidate(keys ...string) {
	if s.cache == nil {
		return
	}
	if len(keys) == 0 {
		s.cache.invalidateAll()
		return
	}
	s.cache.invalidate(keys...)
}

// CacheStats returns how many lookups the cache of hot lookups answered
// (hits) and how many went to the store (misses) since the service began;
// both are zero when the cache is off. For metrics.
func (s *Service) CacheStats() (hits, misses uint64) {
	if s.cache == nil {
		return 0, 0
	}
	return s.cache.stats()
}

// ---- Who is asking ----

// Principal is who a request acts as.
type Principal struct {
	Admin       bool
	AuthorityID int64 // for a maintainer
	TokenID     int64 // for a maintainer
	// Operator is the person running urikit on the data directory itself
	// (urikit import --data DIR): it writes names on behalf of the
	// authority that owns each one. No token gives this principal.
	Operator bool
}

// Operator is the principal of the CLI working directly on a data directory.
var Operator = Principal{Operator: true}

// Actor names the principal in the history.
func (p Principal) Actor() string {
	switch {
	case p.Admin:
		return "admin"
	case p.Operator:
		return "operator"
	case p.TokenID != 0:
		return "token:" + strconv.FormatInt(p.TokenID, 10)
	}
	return "system"
}

// System is the principal of the service's own changes (key migration).
var System = Principal{}

// MinAdminTokenBytes is the shortest admin token Options should give
// (URIKIT_ADMIN_TOKEN; serve warns of a shorter one): 16 bytes. The admin token is a bearer secret that
// anyone who reaches the API can guess at, and nothing slows the guessing;
// a generated one carries 256 bits. 16 bytes is the least that still
// leaves a random token (hex: 64 bits; base64: 96) beyond guessing over
// the network; a person's short word is not.
const MinAdminTokenBytes = 16

// CheckAdminToken says why tok is not safe as the admin token, or nil.
func CheckAdminToken(tok string) error {
	if len(tok) < MinAdminTokenBytes {
		return fmt.Errorf("it is %d bytes long; it should be at least %d (a generated token, urikit admin-token rotate, has 256 random bits), "+
			"since anyone who reaches the server may guess at it", len(tok), MinAdminTokenBytes)
	}
	return nil
}

// EnsureAdminToken makes sure there is an admin token. When Options has
// none and the store holds none, it generates one, stores its hash and
// returns it: the caller shows it once, since it cannot be read back.
// Either way the history records it: the generated token's hash by its
// fingerprint (admin.token), or, when Options has the token and no hash
// is stored, that the token is the environment's (admin.environment, once),
// so that Verify finds a hash stored behind the service's back.
//
// When Options has a token and the store holds the hash of another, that
// token is a rotation: its hash replaces the stored one (admin.token), so
// that the replaced token never acts as admin again, even once the
// variable is unset.
func (s *Service) EnsureAdminToken(ctx context.Context) (generated string, err error) {
	has := func(r Reader, name string) (bool, error) {
		_, err := r.Setting(ctx, name)
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	hashed, err := has(s.store, AdminTokenSetting)
	if err != nil {
		return "", storeError(err)
	}
	if s.opts.AdminToken != "" {
		if hashed {
			return "", s.replaceAdminHash(ctx, s.opts.AdminToken, false)
		}
		return "", storeError(s.recordAdminEnvironment(ctx, has))
	}
	if hashed {
		return "", nil
	}
	tok := NewToken()
	err = s.store.Update(ctx, func(tx Tx) error {
		// Two instances starting at once: the first one's token stands.
		if hashed, err := has(tx, AdminTokenSetting); err != nil || hashed {
			tok = ""
			return err
		}
		return s.storeAdminHash(ctx, tx, HashToken(tok), "")
	})
	if err != nil {
		return "", storeError(err)
	}
	return tok, nil
}

// RotateAdminToken generates a new admin token, replaces the stored hash
// with its hash (admin.token) and returns it, to be shown once: the token
// it replaces, generated or set by URIKIT_ADMIN_TOKEN before, is admin no
// more. A service whose Options give the admin token keeps that one: the
// variable must be changed or unset as well.
func (s *Service) RotateAdminToken(ctx context.Context) (string, error) {
	tok := NewToken()
	if err := s.replaceAdminHash(ctx, tok, true); err != nil {
		return "", err
	}
	return tok, nil
}

// replaceAdminHash stores the hash of tok as the admin token's, with an
// admin.token entry that records the fingerprint of the hash it replaced
// (Verify holds that to the history: a hash stored behind the service's
// back is not laundered by a rotation). Unless always, a stored hash that
// is tok's already is left alone.
func (s *Service) replaceAdminHash(ctx context.Context, tok string, always bool) error {
	h := HashToken(tok)
	err := s.store.Update(ctx, func(tx Tx) error {
		old, err := tx.Setting(ctx, AdminTokenSetting)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if !always && old == fmt.Sprintf("%x", h) {
			return nil
		}
		retired, err := tx.Setting(ctx, adminRetiredSetting)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if slices.Contains(strings.Fields(retired), tokenFingerprint(h)) {
			// A stale configuration: the store is left as it is, for
			// every other instance (EnsureAdminToken's caller warns).
			return ErrAdminTokenReplaced
		}
		replaces := ""
		if old != "" {
			var oh []byte
			if _, err := fmt.Sscanf(old, "%x", &oh); err != nil {
				return &Error{Kind: KindInternal, Message: "the stored admin token hash is not hex", Offset: -1, Err: err}
			}
			replaces = tokenFingerprint(oh)
			if err := tx.SetSetting(ctx, adminRetiredSetting, strings.TrimSpace(retired+" "+replaces)); err != nil {
				return err
			}
		}
		return s.storeAdminHash(ctx, tx, h, replaces)
	})
	if errors.Is(err, ErrAdminTokenReplaced) {
		return ErrAdminTokenReplaced
	}
	return storeError(err)
}

// storeAdminHash sets the admin token's hash h and appends the admin.token
// entry that pins it; replaces is the fingerprint of the hash it replaced,
// or "".
func (s *Service) storeAdminHash(ctx context.Context, tx Tx, h []byte, replaces string) error {
	now, err := s.stamp(ctx, tx)
	if err != nil {
		return err
	}
	if err := tx.SetSetting(ctx, AdminTokenSetting, fmt.Sprintf("%x", h)); err != nil {
		return err
	}
	// The history pins the hash by its fingerprint, as it does a
	// maintainer's token: Verify finds the setting changed behind the
	// service's back.
	data, err := json.Marshal(adminTokenEntryJSON{Fingerprint: tokenFingerprint(h), Replaces: replaces})
	if err != nil {
		return err
	}
	return tx.Append(ctx, &Entry{Time: now, Action: ActionAdminToken, Subject: "admin", Actor: System.Actor(), Data: data})
}

// recordAdminEnvironment appends an admin.environment entry unless one was
// recorded already (the setting adminEnvironmentSetting says so) or a hash
// is stored meanwhile. The setting only saves a duplicate entry: the
// entry, not the setting, is what Verify holds the settings to.
func (s *Service) recordAdminEnvironment(ctx context.Context, has func(Reader, string) (bool, error)) error {
	if done, err := has(s.store, adminEnvironmentSetting); err != nil || done {
		return err
	}
	return s.store.Update(ctx, func(tx Tx) error {
		for _, name := range []string{adminEnvironmentSetting, AdminTokenSetting} {
			if done, err := has(tx, name); err != nil || done {
				return err
			}
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		if err := tx.SetSetting(ctx, adminEnvironmentSetting, "1"); err != nil {
			return err
		}
		return tx.Append(ctx, &Entry{Time: now, Action: ActionAdminEnvironment, Subject: "admin", Actor: System.Actor(), Data: json.RawMessage(`{}`)})
	})
}

// Authenticate returns the principal a bearer token stands for.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, errorf(KindUnauthorized, "this needs a token: send Authorization: Bearer TOKEN")
	}
	if s.opts.AdminToken != "" && sameSecret(token, s.opts.AdminToken) {
		return Principal{Admin: true}, nil
	}
	h := HashToken(token)
	t, err := s.store.TokenByHash(ctx, h)
	if errors.Is(err, ErrNotFound) {
		// Not a maintainer's: the admin token's hash is read afresh
		// each time, not cached, so that a rotation by another process
		// (urikit admin-token rotate beside the server) revokes the old
		// token at once. Maintainers' requests never get here.
		if admin, err := s.adminTokenHash(ctx); err != nil {
			return Principal{}, err
		} else if admin != nil && sameSecret(string(h), string(admin)) {
			return Principal{Admin: true}, nil
		}
		return Principal{}, errorf(KindUnauthorized, "unknown token")
	}
	if err != nil {
		return Principal{}, storeError(err)
	}
	if !t.Active() {
		return Principal{}, errorf(KindUnauthorized, "this token was revoked")
	}
	return Principal{AuthorityID: t.AuthorityID, TokenID: t.ID}, nil
}

// adminTokenHash reads the stored admin token's hash; nil when there is
// none, or when Options give the admin token (which then wins).
func (s *Service) adminTokenHash(ctx context.Context) ([]byte, error) {
	if s.opts.AdminToken != "" {
		return nil, nil
	}
	v, err := s.store.Setting(ctx, AdminTokenSetting)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, storeError(err)
	}
	var h []byte
	if _, err := fmt.Sscanf(v, "%x", &h); err != nil {
		return nil, &Error{Kind: KindInternal, Message: "the stored admin token hash is not hex", Offset: -1, Err: err}
	}
	return h, nil
}

// ---- Reading ----

// ParseName parses a name given to the service: a URN (RFC 8141). field
// names the input in errors.
func ParseName(field, name string) (urn.URN, error) {
	u, err := urn.Parse(name)
	if err != nil {
		off := 0
		var ue *urn.Error
		if errors.As(err, &ue) {
			off = ue.Offset
		}
		return urn.URN{}, invalid(field, off, "not a URN: %s", reasonOf(err))
	}
	return u, nil
}

// Lookup returns the record that name resolves to: the record whose name or
// current alias is equivalent to name (urn.URN.Key), active or withdrawn.
// A name with no record, or a retired alias, is KindNotFound.
func (s *Service) Lookup(ctx context.Context, name urn.URN) (Record, error) {
	key := name.Key()
	rec, role, found, err := s.lookupKey(ctx, key)
	if err != nil {
		return Record{}, err
	}
	if !found {
		return Record{}, &Error{Kind: KindNotFound, Message: "no record for " + name.AssignedName(), Offset: -1}
	}
	if role == RoleRetired {
		return Record{}, &Error{Kind: KindNotFound, Offset: -1, Err: ErrReserved,
			Message: name.AssignedName() + " was an alias of a record here, which dropped it: it stays reserved to that record and resolves to nothing"}
	}
	return rec, nil
}

func (s *Service) lookupKey(ctx context.Context, key string) (Record, Role, bool, error) {
	var st cacheStamp
	if s.cache != nil {
		if c, ok := s.cache.get(key); ok {
			if s.shared == nil {
				// The cached record's slices are shared by every hit: the
				// caller gets its own copy to change as it likes.
				return c.rec.clone(), c.role, c.found, nil
			}
			// Another process may have changed key, its notification
			// still on the way. The hit is used only if every change
			// committed before now has reached Invalidate; it is read
			// again after that check, since an invalidation may have
			// come in between. A stale cache goes to the store; a check
			// that failed because the store is unavailable does not: the
			// store was just asked, and asking again would make the
			// caller wait a second timeout for the same 503.
			cur, err := s.shared.CacheCurrent(ctx)
			if err != nil && errors.Is(err, ErrUnavailable) {
				return Record{}, "", false, storeError(err)
			}
			if err == nil && cur {
				if c, ok := s.cache.get(key); ok {
					return c.rec.clone(), c.role, c.found, nil
				}
			}
		}
		st = s.cache.stamp(key)
	}
	rec, role, err := s.store.RecordByKey(ctx, key)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Record{}, "", false, storeError(err)
	}
	if s.cache != nil {
		s.cache.put(key, cached{rec: rec.clone(), role: role, found: found}, st)
	}
	return rec, role, found, nil
}

// asOfText says t as a person asked for it: the last instant of a day in
// UTC, which an as-of date alone stands for, as that day's end.
func asOfText(t time.Time) string {
	t = t.UTC()
	if end := t.Add(time.Nanosecond); end.Truncate(24 * time.Hour).Equal(end) {
		return "the end of " + t.Format(time.DateOnly) + " (UTC)"
	}
	return t.Format(time.RFC3339Nano)
}

// LookupAsOf returns the record that name resolved to at time t, and the
// history entry that record comes from: the last change to it at or before
// t. A name that had no record then (or was not yet an alias of it) is
// KindNotFound.
func (s *Service) LookupAsOf(ctx context.Context, name urn.URN, t time.Time) (Record, Entry, error) {
	key := name.Key()
	now, _, found, err := s.lookupKey(ctx, key)
	if err != nil {
		return Record{}, Entry{}, err
	}
	notFound := &Error{Kind: KindNotFound, Message: "no record for " + name.AssignedName() + " as of " + asOfText(t), Offset: -1}
	if !found {
		return Record{}, Entry{}, notFound
	}
	at, ok, err := s.lastChange(ctx, now.ID, t)
	if err != nil {
		return Record{}, Entry{}, err
	}
	if !ok {
		return Record{}, Entry{}, notFound
	}
	var rec Record
	if err := json.Unmarshal(at.Data, &rec); err != nil {
		return Record{}, Entry{}, &Error{Kind: KindInternal, Message: "history entry holds no record", Offset: -1, Err: err}
	}
	rec.ID, rec.Key = now.ID, now.Key
	if key != now.Key && !holdsKey(rec.Aliases, key) {
		return Record{}, Entry{}, notFound // not yet (or no longer) an alias then
	}
	return rec, at, nil
}

func holdsKey(names []string, key string) bool {
	for _, a := range names {
		if u, err := urn.Parse(a); err == nil && u.Key() == key {
			return true
		}
	}
	return false
}

// MaxByLocation is how many records an answer found by a location (L2Ns,
// L2Ls, L2C) covers: the first by ID. Any maintainer may list any URL as
// a location, so a popular one may be listed by thousands of records,
// each with up to MaxAliases names and MaxLocations locations; the
// answers stay bounded whatever others register, and say when records
// were left out.
const MaxByLocation = 100

// ByLocation returns the records that list rawURL as a location, compared
// after scheme-based normalization (L2N, L2L): active ones only unless
// withdrawn is true, the first MaxByLocation in ID order (registration
// order), with more reporting whether others list it too.
func (s *Service) ByLocation(ctx context.Context, rawURL string, withdrawn bool) (recs []Record, more bool, err error) {
	_, key, err := s.locationKey("url", rawURL)
	if err != nil {
		return nil, false, err
	}
	return s.byLocationKey(ctx, key, 0, MaxByLocation, withdrawn)
}

// LocationPage returns a page of the records that list rawURL as a
// location (compared as ByLocation compares it): up to limit of them with
// ID > after, in ID order, active ones only unless withdrawn is true, with
// the key rawURL normalizes to, and more reporting whether others follow.
// It is how the records past ByLocation's first MaxByLocation are read.
func (s *Service) LocationPage(ctx context.Context, rawURL string, after int64, limit int, withdrawn bool) (key string, recs []Record, more bool, err error) {
	_, key, err = s.locationKey("url", rawURL)
	if err != nil {
		return "", nil, false, err
	}
	recs, more, err = s.byLocationKey(ctx, key, after, limit, withdrawn)
	return key, recs, more, err
}

// byLocationKey reads up to limit records with ID > after that list the
// location key; one more than is kept tells whether there are more.
func (s *Service) byLocationKey(ctx context.Context, key string, after int64, limit int, withdrawn bool) ([]Record, bool, error) {
	recs, err := s.store.RecordsByLocation(ctx, key, after, limit+1, withdrawn)
	if err != nil {
		return nil, false, storeError(err)
	}
	if len(recs) > limit {
		return recs[:limit], true, nil
	}
	return recs, false, nil
}

// LocationKey returns what L2N and L2L compare a location by: rawURL after
// scheme-based normalization (RFC 3986 §6.2.3), the key the store indexes.
// rawURL must be an absolute URI (KindInvalid otherwise, with the offset).
func LocationKey(rawURL string) (string, error) {
	_, key, err := locationKey("url", rawURL)
	return key, err
}

// lastChangeChunk is how many entries lastChange asks the store for at a
// time: the first is the one, unless entries of other kinds about the
// record come between (no build writes any).
const lastChangeChunk = 8

// lastChange returns the last entry that changed record id at or before t
// (ok false when there is none), read newest first from the entry asOf
// finds.
func (s *Service) lastChange(ctx context.Context, id int64, t time.Time) (e Entry, ok bool, err error) {
	if t.IsZero() {
		t = t.Add(-time.Nanosecond) // the zero time is a time here, not "no bound"
	}
	for before := int64(0); ; {
		es, err := s.RecentHistory(ctx, id, before, t, lastChangeChunk)
		if err != nil {
			return Entry{}, false, err
		}
		for _, e := range es {
			if e.Action.ChangesRecord() {
				return e, true, nil
			}
			before = e.Seq
		}
		if len(es) < lastChangeChunk {
			return Entry{}, false, nil
		}
	}
}

// asOf returns the Seq of the newest entry about record id at or before
// t (ok false when there is none). Entries' times never go backwards in
// Seq order (Seal), so it is a binary search over Seq, each probe the
// newest entry below a bound, found in the store's index of a record's
// entries: an as-of lookup costs the same however many entries came
// after t, where a scan from the newest back would read each of them (a
// record changed 200,000 times took a quarter of a second).
func (s *Service) asOf(ctx context.Context, id int64, t time.Time) (seq int64, ok bool, err error) {
	newest := func(before int64) (Entry, bool, error) {
		es, err := s.store.HistoryBefore(ctx, id, before, time.Time{}, 1)
		if err != nil || len(es) == 0 {
			return Entry{}, false, storeError(err)
		}
		return es[0], true, nil
	}
	e, ok, err := newest(0)
	if err != nil || !ok {
		return 0, false, err
	}
	if !e.Time.After(t) {
		return e.Seq, true, nil // the usual case: nothing since t
	}
	// Entries from hi on are after t; found is the newest entry known to
	// be at or before t, and no entry of the record lies between it and
	// lo.
	lo, hi := int64(0), e.Seq
	var found int64
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		e, ok, err := newest(mid + 1) // the newest at or below mid
		if err != nil {
			return 0, false, err
		}
		switch {
		case !ok:
			lo = mid // none at or below mid
		case e.Time.After(t):
			hi = e.Seq
		default:
			found, lo = e.Seq, mid
		}
	}
	return found, found != 0, nil
}

// History returns the record name resolves to and up to limit entries of
// its history with Seq > after, oldest first: a page of it (see
// RecordHistory).
func (s *Service) History(ctx context.Context, name urn.URN, after int64, limit int) (Record, []Entry, error) {
	rec, err := s.Lookup(ctx, name)
	if err != nil {
		return Record{}, nil, err
	}
	h, err := s.RecordHistory(ctx, rec.ID, after, limit)
	return rec, h, err
}

// RecordHistory returns up to limit entries of the history of the record
// with this ID with Seq > after, oldest first. A history has no bound (a
// record may change a hundred thousand times, each entry holding the whole
// record), so it is read a page at a time.
func (s *Service) RecordHistory(ctx context.Context, id, after int64, limit int) ([]Entry, error) {
	h, err := s.store.History(ctx, id, after, limit)
	return h, storeError(err)
}

// RecentHistory returns up to limit entries of the history of the record
// with this ID, newest first: those with Seq below before (the newest when
// before is 0) and, unless until is zero, at or before until. It is how a
// record is read back by ID as of a time, and its newest versions shown.
func (s *Service) RecentHistory(ctx context.Context, id, before int64, until time.Time, limit int) ([]Entry, error) {
	if !until.IsZero() {
		// The bound by time is found first (asOf): the store then reads
		// from it, rather than past every entry after until.
		seq, ok, err := s.asOf(ctx, id, until)
		if err != nil || !ok {
			return nil, err
		}
		if before <= 0 || before > seq+1 {
			before = seq + 1
		}
	}
	h, err := s.store.HistoryBefore(ctx, id, before, time.Time{}, limit)
	return h, storeError(err)
}

// Rule returns the delegation rule that name takes, if any: the rule with
// the longest prefix the name lies under, in canonical lexical form or in
// its key form (RuleFor).
func (s *Service) Rule(ctx context.Context, name urn.URN) (Rule, bool, error) {
	rules, err := s.store.Rules(ctx)
	if err != nil {
		return Rule{}, false, storeError(err)
	}
	r, _, ok := RuleFor(rules, name)
	return r, ok, nil
}

// Rules returns every delegation rule.
func (s *Service) Rules(ctx context.Context) ([]Rule, error) {
	r, err := s.store.Rules(ctx)
	return r, storeError(err)
}
