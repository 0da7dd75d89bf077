package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/uri"
)

const maxNameBytes = 256

func requireAdmin(p Principal) error {
	if !p.Admin {
		return errorf(KindForbidden, "only the admin token may do this")
	}
	return nil
}

// mayManage checks that p is the admin or a maintainer of authority id.
func mayManage(p Principal, id int64) error {
	if p.Admin || p.AuthorityID == id && id != 0 {
		return nil
	}
	return errorf(KindForbidden, "only the admin or the authority's own maintainers may do this")
}

func checkPersonName(field, s string) error {
	if strings.TrimSpace(s) == "" || len(s) > maxNameBytes || !isText(s) {
		return invalid(field, -1, "must be UTF-8 text of 1 to %d bytes, without NUL", maxNameBytes)
	}
	return nil
}

// CreateAuthority creates a naming authority owning prefixes and returns it
// with its first maintainer token (shown once). Admin only. Prefixes are
// stored in canonical form; one overlapping another authority's is
// KindConflict.
func (s *Service) CreateAuthority(ctx context.Context, p Principal, name string, prefixes []string) (Authority, string, error) {
	if err := requireAdmin(p); err != nil {
		return Authority{}, "", err
	}
	if err := checkPersonName("name", name); err != nil {
		return Authority{}, "", err
	}
	if len(prefixes) == 0 {
		return Authority{}, "", invalid("prefixes", -1, "an authority owns at least one prefix")
	}
	var canon []string
	for i, raw := range prefixes {
		c, err := CanonicalPrefix(raw)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Field = fmt.Sprintf("prefixes[%d]", i)
			}
			return Authority{}, "", err
		}
		// One authority may hold two spellings of one range
		// (urn:isbn:0 and urn:isbn:978-0-): only a prefix that another
		// of its own already covers is refused, as redundant.
		for _, o := range canon {
			if lexicalOverlap(o, c) {
				return Authority{}, "", invalid(fmt.Sprintf("prefixes[%d]", i), -1, "overlaps %s", o)
			}
		}
		canon = append(canon, c)
	}
	tok := NewToken()
	var a Authority
	err := s.store.Update(ctx, func(tx Tx) error {
		auths, err := tx.Authorities(ctx)
		if err != nil {
			return err
		}
		for _, o := range auths {
			for _, op := range o.Prefixes {
				for _, c := range canon {
					if PrefixesOverlap(op, c) {
						return errorf(KindConflict, "prefix %s overlaps %s of authority %d (%s)%s", c, op, o.ID, o.Name, overlapReason(op, c))
					}
				}
			}
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		a = Authority{Name: name, Prefixes: canon, Created: now, Updated: now}
		if err := tx.InsertAuthority(ctx, &a); err != nil {
			return err
		}
		if err := appendAuthority(ctx, tx, p, ActionAuthorityCreate, a, now); err != nil {
			return err
		}
		return s.insertToken(ctx, tx, p, a.ID, name, tok, now)
	})
	if err != nil {
		return Authority{}, "", storeError(err)
	}
	return a, tok, nil
}

func appendAuthority(ctx context.Context, tx Tx, p Principal, action Action, a Authority, at time.Time) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return tx.Append(ctx, &Entry{Time: at, Action: action, Subject: "authority:" + strconv.FormatInt(a.ID, 10),
		AuthorityID: a.ID, Actor: p.Actor(), Data: data})
}

func (s *Service) insertToken(ctx context.Context, tx Tx, p Principal, authority int64, label, tok string, now time.Time) error {
	t := Token{AuthorityID: authority, Label: label, Hash: HashToken(tok), Created: now}
	if err := tx.InsertToken(ctx, &t); err != nil {
		return err
	}
	return appendToken(ctx, tx, p, ActionTokenCreate, t, now)
}

func appendToken(ctx context.Context, tx Tx, p Principal, action Action, t Token, at time.Time) error {
	data, err := json.Marshal(t.entryJSON())
	if err != nil {
		return err
	}
	return tx.Append(ctx, &Entry{Time: at, Action: action, Subject: "authority:" + strconv.FormatInt(t.AuthorityID, 10),
		AuthorityID: t.AuthorityID, Actor: p.Actor(), Data: data})
}

// Authorities lists the naming authorities. Admin only.
func (s *Service) Authorities(ctx context.Context, p Principal) ([]Authority, error) {
	if err := requireAdmin(p); err != nil {
		return nil, err
	}
	a, err := s.store.Authorities(ctx)
	return a, storeError(err)
}

// Authority returns one authority and its tokens (without their secrets).
// The admin and the authority's maintainers may read it.
func (s *Service) Authority(ctx context.Context, p Principal, id int64) (Authority, []Token, error) {
	if err := mayManage(p, id); err != nil {
		return Authority{}, nil, err
	}
	a, err := s.store.Authority(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Authority{}, nil, errorf(KindNotFound, "no authority %d", id)
	}
	if err != nil {
		return Authority{}, nil, storeError(err)
	}
	toks, err := s.store.Tokens(ctx, id)
	return a, toks, storeError(err)
}

// AddToken gives authority id a new maintainer token, returned once. The
// admin and the authority's maintainers may add one, so that an authority
// is never left to one person.
func (s *Service) AddToken(ctx context.Context, p Principal, id int64, label string) (Token, string, error) {
	if err := mayManage(p, id); err != nil {
		return Token{}, "", err
	}
	if label != "" {
		if err := checkPersonName("label", label); err != nil {
			return Token{}, "", err
		}
	}
	tok := NewToken()
	var t Token
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := stillValid(ctx, tx, p); err != nil {
			return err
		}
		if _, err := tx.Authority(ctx, id); errors.Is(err, ErrNotFound) {
			return errorf(KindNotFound, "no authority %d", id)
		} else if err != nil {
			return err
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		if err := s.insertToken(ctx, tx, p, id, label, tok, now); err != nil {
			return err
		}
		t, err = tx.TokenByHash(ctx, HashToken(tok))
		return err
	})
	if err != nil {
		return Token{}, "", storeError(err)
	}
	return t, tok, nil
}

// RevokeToken revokes one of authority id's tokens. The admin and the
// authority's maintainers may; the last valid token of an authority can
// only be replaced by a transfer, never revoked, so that nobody locks the
// authority out by mistake.
func (s *Service) RevokeToken(ctx context.Context, p Principal, id, tokenID int64) error {
	if err := mayManage(p, id); err != nil {
		return err
	}
	err := s.store.Update(ctx, func(tx Tx) error {
		if err := stillValid(ctx, tx, p); err != nil {
			return err
		}
		toks, err := tx.Tokens(ctx, id)
		if err != nil {
			return err
		}
		live, target := 0, -1
		for i, t := range toks {
			if t.Active() {
				live++
			}
			if t.ID == tokenID {
				target = i
			}
		}
		if target < 0 {
			return errorf(KindNotFound, "authority %d has no token %d", id, tokenID)
		}
		t := toks[target]
		if !t.Active() {
			return nil // already revoked
		}
		if live == 1 {
			return errorf(KindConflict, "token %d is the authority's last valid token: add another first, or transfer the authority", tokenID)
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		t.Revoked = now
		if err := tx.UpdateToken(ctx, t); err != nil {
			return err
		}
		return appendToken(ctx, tx, p, ActionTokenRevoke, t, now)
	})
	return storeError(err)
}

// TransferAuthority hands authority id to a new owner: it revokes every
// token of the old maintainers and returns a first token for the new one.
// Names, prefixes and history stay. Admin only.
func (s *Service) TransferAuthority(ctx context.Context, p Principal, id int64, newName string) (Authority, string, error) {
	if err := requireAdmin(p); err != nil {
		return Authority{}, "", err
	}
	if err := checkPersonName("name", newName); err != nil {
		return Authority{}, "", err
	}
	tok := NewToken()
	var a Authority
	err := s.store.Update(ctx, func(tx Tx) error {
		var err error
		a, err = tx.Authority(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return errorf(KindNotFound, "no authority %d", id)
		}
		if err != nil {
			return err
		}
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		toks, err := tx.Tokens(ctx, id)
		if err != nil {
			return err
		}
		for _, t := range toks {
			if t.Active() {
				t.Revoked = now
				if err := tx.UpdateToken(ctx, t); err != nil {
					return err
				}
				if err := appendToken(ctx, tx, p, ActionTokenRevoke, t, now); err != nil {
					return err
				}
			}
		}
		a.Name, a.Updated = newName, now
		if err := tx.UpdateAuthority(ctx, a); err != nil {
			return err
		}
		if err := appendAuthority(ctx, tx, p, ActionAuthorityTransfer, a, now); err != nil {
			return err
		}
		return s.insertToken(ctx, tx, p, id, newName, tok, now)
	})
	if err != nil {
		return Authority{}, "", storeError(err)
	}
	return a, tok, nil
}

// AddRule hands the names under prefix to the resolver at target (RFC
// 2276). Admin only; a rule for the same canonical prefix is KindConflict.
func (s *Service) AddRule(ctx context.Context, p Principal, prefix, target string) (Rule, error) {
	if err := requireAdmin(p); err != nil {
		return Rule{}, err
	}
	c, err := NewRule(prefix, target)
	if err != nil {
		return Rule{}, err
	}
	var r Rule
	err = s.store.Update(ctx, func(tx Tx) error {
		now, err := s.stamp(ctx, tx)
		if err != nil {
			return err
		}
		r = Rule{Prefix: c.Prefix, Target: c.Target, Created: now}
		if err := tx.InsertRule(ctx, &r); errors.Is(err, ErrKeyTaken) {
			return errorf(KindConflict, "there is already a rule for %s", c.Prefix)
		} else if err != nil {
			return err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return tx.Append(ctx, &Entry{Time: now, Action: ActionRuleAdd, Subject: "rule:" + strconv.FormatInt(r.ID, 10), Actor: p.Actor(), Data: data})
	})
	return r, storeError(err)
}

// NewRule checks a delegation rule as AddRule does, without storing it:
// its prefix in canonical form (CanonicalPrefix) and its target (see
// CheckRuleTarget). The rule has no ID. A dry run of a rule change uses it.
func NewRule(prefix, target string) (Rule, error) {
	c, err := CanonicalPrefix(prefix)
	if err != nil {
		return Rule{}, err
	}
	if err := CheckRuleTarget(target); err != nil {
		return Rule{}, err
	}
	return Rule{Prefix: c, Target: target}, nil
}

// CheckRuleTarget checks the target of a delegation rule, the other
// resolver's base URL: an absolute http or https URL of at most
// MaxURLBytes bytes (a location's bound: the redirect is one) with a host,
// a port, if any, of 1 to 65535, and no userinfo, query or fragment.
// Errors are KindInvalid about field "target", at the byte offset of the
// fault. The redirect builder (resolver/federate) checks stored targets
// with it again, so that a rule stored before one of these checks never
// sends a client where NewRule would not.
func CheckRuleTarget(target string) error {
	if len(target) > MaxURLBytes {
		return invalid("target", MaxURLBytes, "a resolver's base URL has at most %d bytes", MaxURLBytes)
	}
	t, err := uri.Parse(target)
	if err != nil {
		// The reason only: the field and the offset are the Error's own,
		// and uri.Error's text would repeat them with its "uri: " prefix.
		var ue *uri.Error
		off, reason := 0, err.Error()
		if errors.As(err, &ue) {
			off, reason = ue.Offset, ue.Reason
		}
		return invalid("target", off, "not an absolute URI (the resolver's base URL, such as https://resolver.example/): %s", reason)
	}
	if sch := strings.ToLower(t.Scheme()); sch != "http" && sch != "https" {
		return invalid("target", 0, "a resolver is reached over http or https")
	}
	// After "scheme:" comes "//" and the authority, when there is one.
	auth := len(t.Scheme()) + 1
	if !t.HasAuthority() {
		return invalid("target", auth, "a resolver's base URL has a host (http://host/…, RFC 9110 §4.2.1)")
	}
	auth += 2
	host := auth
	if t.HasUserinfo() {
		// "https://trusted.example@evil.example/" goes to evil.example:
		// the userinfo only dresses it up (RFC 3986 §7.6), and RFC 9110
		// §4.2.4 has http(s) URLs without it.
		return invalid("target", auth, "a resolver's base URL has no userinfo (user@ before the host)")
	}
	if t.Host() == "" {
		return invalid("target", host, "a resolver's base URL has a host (http://host/…, RFC 9110 §4.2.1)")
	}
	if i := strings.IndexByte(t.Host(), '%'); i >= 0 {
		// A DNS name or an IP address has no percent-encoding, and a
		// browser decodes it (WHATWG URL host parsing): bank.example%2Eevil.example
		// goes to bank.example.evil.example while it reads as another.
		return invalid("target", host+i, "a resolver's host is a domain name or an IP address, not percent-encoded")
	}
	if p := t.Port(); p != "" {
		if n, ok := t.PortNumber(); !ok || n == 0 {
			return invalid("target", auth+len(t.Authority())-len(p), "a port is 1 to 65535, not %s", p)
		}
	}
	if t.HasQuery() {
		return invalid("target", strings.IndexByte(target, '?'), "a resolver's base URL has no query")
	}
	if t.HasFragment() {
		// The redirect is built from the base (RFC 2169 §2's
		// /uri-res/<service>?<urn> goes after it), which a fragment
		// would end: it could not be kept.
		return invalid("target", strings.IndexByte(target, '#'), "a resolver's base URL has no fragment")
	}
	return nil
}

// RemoveRule deletes a delegation rule. Admin only.
func (s *Service) RemoveRule(ctx context.Context, p Principal, id int64) error {
	if err := requireAdmin(p); err != nil {
		return err
	}
	err := s.store.Update(ctx, func(tx Tx) error {
		rules, err := tx.Rules(ctx)
		if err != nil {
			return err
		}
		for _, r := range rules {
			if r.ID != id {
				continue
			}
			if err := tx.DeleteRule(ctx, id); err != nil {
				return err
			}
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			now, err := s.stamp(ctx, tx)
			if err != nil {
				return err
			}
			return tx.Append(ctx, &Entry{Time: now, Action: ActionRuleRemove, Subject: "rule:" + strconv.FormatInt(id, 10), Actor: p.Actor(), Data: data})
		}
		return errorf(KindNotFound, "no rule %d", id)
	})
	return storeError(err)
}
