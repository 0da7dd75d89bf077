package resolver

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AccessError tells where the authorities, tokens or delegation rules as
// stored depart from what the history's entries about them say: a token
// added or revived, an authority's prefixes widened, a rule added or
// pointed elsewhere in the database, without going through the Service.
// Each of these hands names, or the lookups of names, to someone the
// history never gave them to.
type AccessError struct {
	Kind      string // "authority", "token", "rule", "admin token" or "location keys"
	ID        int64
	Authority int64  // for a token: its authority, as stored or else as the history has it
	Seq       int64  // the history entry compared with; 0 when there is none
	Reason    string // what differs
}

func (e *AccessError) Error() string {
	return e.Subject() + ": " + e.Reason
}

// Subject names what e is about: "authority 2", "token 7 of authority 2",
// "rule 3", "the admin token".
func (e *AccessError) Subject() string {
	switch e.Kind {
	case "admin token":
		return "the admin token"
	case "location keys":
		return "the location keys' version"
	}
	s := e.Kind + " " + strconv.FormatInt(e.ID, 10)
	if e.Kind == "token" {
		s += " of authority " + strconv.FormatInt(e.Authority, 10)
	}
	return s
}

// IsAccessError reports whether err says that authorities, tokens or
// delegation rules were changed without going through the history.
func IsAccessError(err error) bool {
	var e *AccessError
	return errors.As(err, &e)
}

// accessReplay is the authorities, tokens and rules that the history's
// entries up to upTo make, built entry by entry as the chain is checked.
type accessReplay struct {
	upTo        int64
	authorities map[int64]replayed[Authority]
	tokens      map[int64]replayedToken
	rules       map[int64]replayed[Rule]
	// admin is the fingerprint of the generated admin token's hash as the
	// last admin.token entry, adminSeq, recorded it; adminSeq is 0 when
	// no entry did (URIKIT_ADMIN_TOKEN, or a store from before the
	// history recorded it).
	admin    string
	adminSeq int64
	adminEnv bool // the last entry, adminSeq, is an admin.environment
	// locations is the LocationKeyVersion the last locations.migrate
	// entry, locationsSeq, recorded; locationsSeq is 0 when none did
	// (the keys are then of version 1).
	locations    int
	locationsSeq int64
}

// replayed is one item as the last entry about it, Seq, left it.
type replayed[T any] struct {
	v   T
	seq int64
}

type replayedToken struct {
	t           Token // without Hash: the history keeps only its fingerprint
	fingerprint string
	seq         int64 // the last entry about the token
	pinnedBy    int64 // the entry whose fingerprint is compared; 0 when none has one
}

func newAccessReplay(upTo int64) *accessReplay {
	return &accessReplay{upTo: upTo, authorities: map[int64]replayed[Authority]{},
		tokens: map[int64]replayedToken{}, rules: map[int64]replayed[Rule]{}}
}

// apply replays e, an entry whose place in the chain is verified. Every
// entry about an authority, token or rule holds the whole item as the
// change left it (a removed rule as it was), so the state after e is the
// state before with that item replaced.
func (r *accessReplay) apply(e Entry) error {
	if e.Seq > r.upTo {
		return nil
	}
	bad := func(kind string, err error) error {
		id := idOf(e.Subject) // "authority:ID" or "rule:ID"
		if kind == "token" {
			id = 0 // its subject is its authority; its own ID is in the data that does not decode
		}
		return &AccessError{Kind: kind, ID: id, Authority: e.AuthorityID, Seq: e.Seq,
			Reason: fmt.Sprintf("history entry %d (%s) does not hold the %s it is about: %v", e.Seq, e.Action, kind, err)}
	}
	switch e.Action {
	case ActionAuthorityCreate, ActionAuthorityTransfer:
		var a Authority
		if err := json.Unmarshal(e.Data, &a); err != nil {
			return bad("authority", err)
		}
		r.authorities[a.ID] = replayed[Authority]{a, e.Seq}
	case ActionTokenCreate, ActionTokenRevoke:
		var j tokenEntryJSON
		if err := json.Unmarshal(e.Data, &j); err != nil {
			return bad("token", err)
		}
		t := Token{ID: j.ID, AuthorityID: j.Authority, Label: j.Label, Created: j.Created}
		if j.Revoked != nil {
			t.Revoked = *j.Revoked
		}
		rt := r.tokens[t.ID]
		rt.t, rt.seq = t, e.Seq
		if j.Fingerprint != "" {
			rt.fingerprint, rt.pinnedBy = j.Fingerprint, e.Seq
		}
		r.tokens[t.ID] = rt
	case ActionRuleAdd, ActionRuleRemove:
		var j ruleJSON
		if err := json.Unmarshal(e.Data, &j); err != nil {
			return bad("rule", err)
		}
		if e.Action == ActionRuleRemove {
			delete(r.rules, j.ID)
		} else {
			r.rules[j.ID] = replayed[Rule]{Rule(j), e.Seq}
		}
	case ActionAdminToken:
		var j adminTokenEntryJSON
		if err := json.Unmarshal(e.Data, &j); err != nil {
			return bad("admin token", err)
		}
		if j.Fingerprint == "" {
			return bad("admin token", errors.New("no fingerprint"))
		}
		// A rotation replaces the hash the history pinned last. One that
		// replaced another (a hash stored behind the service's back,
		// or stored when the history said the token was the
		// environment's) must not hide it: the entry says so for
		// good. A hash no entry pinned (an older build's) is let be.
		if j.Replaces != "" && r.adminSeq != 0 && (r.adminEnv || j.Replaces != r.admin) {
			return &AccessError{Kind: "admin token", Seq: e.Seq, Reason: fmt.Sprintf("history entry %d replaced an admin token hash "+
				"that history entry %d did not record: the hash had been changed behind the service's back", e.Seq, r.adminSeq)}
		}
		r.admin, r.adminSeq, r.adminEnv = j.Fingerprint, e.Seq, false
	case ActionAdminEnvironment:
		r.admin, r.adminSeq, r.adminEnv = "", e.Seq, true
	case ActionLocationsMigrate:
		var j locationsMigrateJSON
		if err := json.Unmarshal(e.Data, &j); err != nil {
			return bad("location keys", err)
		}
		if j.Version < 1 {
			return bad("location keys", fmt.Errorf("version %d", j.Version))
		}
		r.locations, r.locationsSeq = j.Version, e.Seq
	}
	return nil
}

// idOf reads the ID of an entry's subject, "authority:ID" or "rule:ID".
func idOf(subject string) int64 {
	_, id, _ := strings.Cut(subject, ":")
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}

// accessCounts counts what accessReplay.compare checked.
type accessCounts struct {
	authorities, tokens, rules int64
	unpinned                   int64 // tokens whose history records no fingerprint of their hash
	admin                      bool  // the admin token's hash was compared with the history's
	unpinnedAdmin              bool  // an admin token's hash is stored, but no entry recorded it
	locationVersion            int   // the location keys' version, as stored and as the history has it
	oldRules                   int64 // rules whose target a write refuses today (CheckRuleTarget)
	oldRuleExample             string
}

// compare checks the stored authorities, tokens and rules against the
// replay, each table in ID order, and returns the first difference as an
// *AccessError. Token hashes are compared by fingerprint and never shown.
func (r *accessReplay) compare(st AccessState) (accessCounts, error) {
	var n accessCounts
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	for _, a := range st.Authorities {
		fail := func(seq int64, format string, args ...any) error {
			return &AccessError{Kind: "authority", ID: a.ID, Seq: seq, Reason: fmt.Sprintf(format, args...)}
		}
		want, ok := r.authorities[a.ID]
		if !ok {
			return n, fail(0, "the authorities table holds it (%q, prefixes %q), but no history entry created it", a.Name, a.Prefixes)
		}
		w := want.v
		switch {
		case a.Name != w.Name:
			return n, fail(want.seq, "its name is %q in the authorities table but %q in history entry %d", a.Name, w.Name, want.seq)
		case !slices.Equal(a.Prefixes, w.Prefixes):
			// Widened, it owns names the history never gave it;
			// narrowed, its maintainers lose names that are theirs.
			why := "its maintainers could no longer change names the history gave it"
			covered := func(p string) bool { // by a prefix the history gave it
				return slices.ContainsFunc(w.Prefixes, func(h string) bool { return strings.HasPrefix(p, h) })
			}
			if slices.ContainsFunc(a.Prefixes, func(p string) bool { return !covered(p) }) {
				why = "it would own names the history never gave it"
			}
			return n, fail(want.seq, "its prefixes are %q in the authorities table but %q in history entry %d: %s", a.Prefixes, w.Prefixes, want.seq, why)
		case !a.Created.Equal(w.Created):
			return n, fail(want.seq, "created is %s in the authorities table but %s in history entry %d", at(a.Created), at(w.Created), want.seq)
		case !a.Updated.Equal(w.Updated):
			return n, fail(want.seq, "updated is %s in the authorities table but %s in history entry %d", at(a.Updated), at(w.Updated), want.seq)
		}
		n.authorities++
	}
	if id, want, ok := firstMissing(r.authorities, st.Authorities, func(a Authority) int64 { return a.ID }); ok {
		return n, &AccessError{Kind: "authority", ID: id, Seq: want.seq,
			Reason: fmt.Sprintf("history entry %d made it (%q), but the authorities table has no row for it", want.seq, want.v.Name)}
	}

	for _, t := range st.Tokens {
		fail := func(seq int64, format string, args ...any) error {
			return &AccessError{Kind: "token", ID: t.ID, Authority: t.AuthorityID, Seq: seq, Reason: fmt.Sprintf(format, args...)}
		}
		want, ok := r.tokens[t.ID]
		if !ok {
			state := "valid"
			if !t.Active() {
				state = "revoked"
			}
			return n, fail(0, "the tokens table holds it (label %q, %s), but no history entry created it: "+
				"whoever has its secret acts for authority %d", t.Label, state, t.AuthorityID)
		}
		w := want.t
		switch {
		case t.AuthorityID != w.AuthorityID:
			return n, fail(want.seq, "it belongs to authority %d in the tokens table but to authority %d in history entry %d",
				t.AuthorityID, w.AuthorityID, want.seq)
		case t.Active() && !w.Active():
			return n, fail(want.seq, "it is valid in the tokens table, but history entry %d revoked it at %s", want.seq, at(w.Revoked))
		case !t.Active() && w.Active():
			return n, fail(want.seq, "the tokens table has it revoked at %s, but in history entry %d it is valid", at(t.Revoked), want.seq)
		case !t.Revoked.Equal(w.Revoked):
			return n, fail(want.seq, "revoked is %s in the tokens table but %s in history entry %d", at(t.Revoked), at(w.Revoked), want.seq)
		case t.Label != w.Label:
			return n, fail(want.seq, "its label is %q in the tokens table but %q in history entry %d", t.Label, w.Label, want.seq)
		case !t.Created.Equal(w.Created):
			return n, fail(want.seq, "created is %s in the tokens table but %s in history entry %d", at(t.Created), at(w.Created), want.seq)
		case want.pinnedBy != 0 && tokenFingerprint(t.Hash) != want.fingerprint:
			// Neither hash is shown: one is a credential's lookup key.
			return n, fail(want.pinnedBy, "its hash in the tokens table is not the one history entry %d recorded: "+
				"it accepts a secret other than the one issued", want.pinnedBy)
		}
		if want.pinnedBy == 0 {
			n.unpinned++
		}
		n.tokens++
	}
	if id, want, ok := firstMissing(r.tokens, st.Tokens, func(t Token) int64 { return t.ID }); ok {
		return n, &AccessError{Kind: "token", ID: id, Authority: want.t.AuthorityID, Seq: want.seq,
			Reason: fmt.Sprintf("history entry %d is about it (label %q), but the tokens table has no row for it", want.seq, want.t.Label)}
	}

	for _, ru := range st.Rules {
		fail := func(seq int64, format string, args ...any) error {
			return &AccessError{Kind: "rule", ID: ru.ID, Seq: seq, Reason: fmt.Sprintf(format, args...)}
		}
		want, ok := r.rules[ru.ID]
		if !ok {
			return n, fail(0, "the rules table holds it (%s to %s), but no history entry added it, or one removed it: "+
				"lookups of names under %s go to %s", ru.Prefix, ru.Target, ru.Prefix, ru.Target)
		}
		w := want.v
		switch {
		case ru.Prefix != w.Prefix:
			return n, fail(want.seq, "its prefix is %q in the rules table but %q in history entry %d", ru.Prefix, w.Prefix, want.seq)
		case ru.Target != w.Target:
			return n, fail(want.seq, "its target is %q in the rules table but %q in history entry %d: "+
				"lookups of names under %s go elsewhere", ru.Target, w.Target, want.seq, w.Prefix)
		case !ru.Created.Equal(w.Created):
			return n, fail(want.seq, "created is %s in the rules table but %s in history entry %d", at(ru.Created), at(w.Created), want.seq)
		}
		if err := CheckRuleTarget(ru.Target); err != nil {
			// Stored before a check of CheckRuleTarget: not a fault of
			// the store, but a rule the server cannot follow.
			if n.oldRules++; n.oldRuleExample == "" {
				n.oldRuleExample = fmt.Sprintf("rule %d, %s → %s: %v", ru.ID, ru.Prefix, ru.Target, err)
			}
		}
		n.rules++
	}
	if id, want, ok := firstMissing(r.rules, st.Rules, func(ru Rule) int64 { return ru.ID }); ok {
		return n, &AccessError{Kind: "rule", ID: id, Seq: want.seq,
			Reason: fmt.Sprintf("history entry %d added it (%s to %s), but the rules table has no row for it", want.seq, want.v.Prefix, want.v.Target)}
	}

	// The generated admin token. A store whose token was generated before
	// the history recorded it has a hash and no entry: it is counted, not
	// failed, as a token without a fingerprint is (nothing in the store
	// tells that hash from one written behind the service's back).
	switch {
	case r.adminEnv && st.AdminTokenHash != "":
		return n, &AccessError{Kind: "admin token", Seq: r.adminSeq, Reason: fmt.Sprintf("history entry %d recorded that it is set in "+
			"the environment (URIKIT_ADMIN_TOKEN) and no hash is stored, but the settings hold one: "+
			"its secret would act as admin once the variable is unset", r.adminSeq)}
	case r.adminEnv:
		n.admin = true
	case r.adminSeq != 0 && st.AdminTokenHash == "":
		return n, &AccessError{Kind: "admin token", Seq: r.adminSeq, Reason: fmt.Sprintf("history entry %d recorded its hash, "+
			"but the settings hold none: the next start would issue a new admin token to whoever starts the server", r.adminSeq)}
	case r.adminSeq != 0:
		h, err := hex.DecodeString(st.AdminTokenHash)
		if err != nil || tokenFingerprint(h) != r.admin {
			// Neither hash is shown, as for a maintainer's token.
			return n, &AccessError{Kind: "admin token", Seq: r.adminSeq, Reason: fmt.Sprintf("its hash in the settings is not the one "+
				"history entry %d recorded: it accepts a secret other than the one issued", r.adminSeq)}
		}
		n.admin = true
	case st.AdminTokenHash != "":
		n.unpinnedAdmin = true
	}

	// The location keys' version: Verify recomputes the keys only when
	// they are of this build's rules, so a version set back behind the
	// history's back would hide keys edited to send L2N elsewhere.
	want := 1
	if r.locationsSeq != 0 {
		want = r.locations
	}
	stored := 1
	if st.LocationKeyVersion != "" {
		v, err := parseLocationVersion(st.LocationKeyVersion)
		if err != nil {
			return n, &AccessError{Kind: "location keys", Seq: r.locationsSeq, Reason: err.Error()}
		}
		stored = v
	}
	if stored != want {
		src := "no history entry migrated them, which makes them version 1"
		if r.locationsSeq != 0 {
			src = fmt.Sprintf("history entry %d migrated them to version %d", r.locationsSeq, want)
		}
		return n, &AccessError{Kind: "location keys", Seq: r.locationsSeq,
			Reason: fmt.Sprintf("the setting %s says version %d, but %s", LocationKeySetting, stored, src)}
	}
	n.locationVersion = stored
	return n, nil
}

// firstMissing returns the item of the replay, lowest ID first, that the
// stored list lacks.
func firstMissing[R any, S any](replay map[int64]R, stored []S, id func(S) int64) (int64, R, bool) {
	have := make(map[int64]bool, len(stored))
	for _, s := range stored {
		have[id(s)] = true
	}
	var ids []int64
	for i := range replay {
		if !have[i] {
			ids = append(ids, i)
		}
	}
	if len(ids) == 0 {
		var zero R
		return 0, zero, false
	}
	m := slices.Min(ids)
	return m, replay[m], true
}
