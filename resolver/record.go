package resolver

import (
	"encoding/json"
	"slices"
	"time"
)

// Status is the life-cycle state of a record.
type Status string

const (
	// Active records resolve to their locations.
	Active Status = "active"
	// Withdrawn records answer 410 Gone for ever; their names and aliases
	// stay reserved to them.
	Withdrawn Status = "withdrawn"
)

// DefaultRedirect is the status of a redirect to a record's first location
// when the record asks for none: 303 See Other, since the URN names a
// resource and the location is one place that serves a representation of it.
const DefaultRedirect = 303

// Location is one place where a named resource can be fetched.
type Location struct {
	URL   string `json:"url"`
	Type  string `json:"type,omitempty"`  // media type, optional
	Label string `json:"label,omitempty"` // for people, optional

	// Key is the URL after scheme-based normalization (RFC 3986 §6.2.3):
	// what L2N and L2L compare. Set by the Service; stores index it.
	Key string `json:"-"`
}

// Record is what the directory keeps for one named resource.
type Record struct {
	ID        int64
	URN       string // the spelling first registered; canonical for this record
	Key       string // urn.URN.Key of URN
	Aliases   []string
	Locations []Location // in order of preference
	Metadata  json.RawMessage
	Status    Status
	Redirect  int    // 301, 302, 303 or 307
	Successor string // for a withdrawn record, the URI of what replaces it
	// SuccessorKey is urn.URN.Key of Successor when Successor is a URN
	// ("" otherwise): stores index it, so that the records a record
	// replaces are found by its keys (Reader.Predecessors). Set by the
	// Service (SuccessorKeyOf), as Key is.
	SuccessorKey string
	// SuccessorVersion is the urn.KeyVersion of the rules that computed
	// SuccessorKey (or found Successor no URN), as Key.Version is for the
	// keys table; 0 when there is no successor. urikit migrate computes
	// the key again when it is older than this build's.
	SuccessorVersion int
	// Predecessors are the canonical names (URN) of the withdrawn records
	// whose successor is this record (Service.WithPredecessors): part of
	// the JSON form and so of the ETag where a record is shown with them,
	// but never stored, nor in a history entry. A store leaves it nil.
	Predecessors []string
	// MorePredecessors reports that more records name this one as their
	// successor than the MaxPredecessors in Predecessors.
	MorePredecessors bool
	Reason           string // why it was withdrawn
	AuthorityID      int64
	Created          time.Time
	Updated          time.Time
}

// clone returns r with its own copies of the slices it holds, so that a
// change to one does not show through the other.
func (r Record) clone() Record {
	r.Aliases = slices.Clone(r.Aliases)
	r.Locations = slices.Clone(r.Locations)
	r.Metadata = slices.Clone(r.Metadata)
	r.Predecessors = slices.Clone(r.Predecessors)
	return r
}

// Role is what a key names in a record.
type Role string

const (
	// RoleName is the key of the record's own name.
	RoleName Role = "name"
	// RoleAlias is the key of one of the record's current aliases.
	RoleAlias Role = "alias"
	// RoleRetired is the key of an alias the record no longer lists. It
	// resolves to nothing but stays reserved to the record: names are never
	// reused.
	RoleRetired Role = "retired"
)

// Key is one equivalence key that the store reserves to a record.
type Key struct {
	Key      string // urn.URN.Key of the name or alias
	Spelling string // the name or alias as written
	RecordID int64
	Role     Role
	Version  int // urn.KeyVersion of the rules that computed Key
}

// Authority is a naming authority: it owns the names under its prefixes.
type Authority struct {
	ID       int64
	Name     string   // who it is, for people
	Prefixes []string // canonical lexical form (see CanonicalPrefix)
	Created  time.Time
	Updated  time.Time
}

// Token is one maintainer's credential for an authority. Only its SHA-256
// hash is stored: tokens are 256-bit random strings, so a fast hash is as
// good as a slow one and keeps authentication cheap.
type Token struct {
	ID          int64
	AuthorityID int64
	Label       string // whose token it is, for people
	Hash        []byte // SHA-256 of the token text
	Created     time.Time
	Revoked     time.Time // zero while the token is valid
}

// Active reports whether the token may still be used.
func (t Token) Active() bool { return t.Revoked.IsZero() }

// Rule hands every name under Prefix to another resolver (RFC 2276).
type Rule struct {
	ID      int64
	Prefix  string // canonical lexical form (see CanonicalPrefix)
	Target  string // base URL of the other resolver, e.g. https://resolver.example/
	Created time.Time
}

// Duplicate is a location that several records share (after normalization).
type Duplicate struct {
	Key      string   // the normalized URL
	URNs     []string // the records' names, in record order: the first MaxByLocation
	Statuses []Status // the records' statuses, in the order of URNs
	// LastID is the ID of the last record of URNs.
	LastID int64
	// More is set when more records list the location than URNs holds
	// (a page of a popular site's may be listed by thousands): the rest
	// are read by RecordsByLocation, after LastID.
	More bool
}
