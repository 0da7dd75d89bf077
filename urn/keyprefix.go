package urn

import "strings"

// PrefixNormalizer is implemented by a Namespace whose equivalence rules can
// move a name's key away from the name's own spelling (case folding,
// hyphens dropped, an ISBN-10 turned into its ISBN-13). NormalizePrefix
// returns where the keys of the names starting with an NSS prefix lie: for
// every NSS that starts with nssPrefix (canonical, RFC 8141 §3.1) and that
// Normalize accepts, the key starts with one of the strings returned.
// Names that Normalize refuses keep their canonical form as their key, so
// a caller adds nssPrefix itself.
type PrefixNormalizer interface {
	NormalizePrefix(nssPrefix string) []string
}

// KeyPrefixes returns the beginnings of the keys (URN.Key) of the names
// under a prefix: "urn:" NID ":" and the start of an NSS, in RFC 8141 §3.1
// canonical form. Every URN whose canonical form starts with prefix has a
// key that starts with one of them. The first is always prefix itself.
//
// Two prefixes can hold equivalent names only if some key prefix of one
// is a prefix of some key prefix of the other: "urn:nbn:DE:101-" and
// "urn:nbn:de:101-" (RFC 8458 §4.3 makes the NBN prefix case-insensitive),
// "urn:isbn:0" and "urn:isbn:978-0-" (an ISBN-10 starting with 0 has an
// ISBN-13 key starting with 9780; RFC 3187). The answer is on the safe
// side: a key prefix may also cover keys that no name under prefix has.
func KeyPrefixes(prefix string) []string { return Rules{}.KeyPrefixes(prefix) }

// KeyPrefixes is the package-level KeyPrefixes with the namespace rules of r.
// A namespace of r that does not implement PrefixNormalizer contributes
// nothing beyond prefix itself.
func (r Rules) KeyPrefixes(prefix string) []string {
	out := []string{prefix}
	if len(prefix) < 4 || !strings.EqualFold(prefix[:4], "urn:") {
		return out
	}
	nid, nss, ok := strings.Cut(prefix[4:], ":")
	if !ok {
		return out
	}
	ns, known := r.Lookup(nid)
	pn, can := ns.(PrefixNormalizer)
	if !known || !can {
		return out
	}
	// A prefix that stops inside a percent-encoding ("%C" of "%CA") is
	// normalized up to it: the rules keep a percent-encoding whole (its
	// hex digits upper case, RFC 8141 §3.1), so what is left of it follows
	// as it is; a fold must not take its "C" for a letter.
	body, tail := nss, ""
	if i := strings.LastIndexByte(nss, '%'); i >= 0 && len(nss)-i < 3 {
		body, tail = nss[:i], nss[i:]
	}
	head := prefix[:len(prefix)-len(nss)]
	for _, k := range pn.NormalizePrefix(body) {
		if k += tail; k != nss && !contains(out, head+k) {
			out = append(out, head+k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Folding and per-character maps carry over from a name to its prefix:
// the key of a name under p starts with the map of p.

func (ietf) NormalizePrefix(p string) []string { return []string{foldNSS(p)} }
func (iso) NormalizePrefix(p string) []string  { return []string{foldNSS(p)} }
func (issn) NormalizePrefix(p string) []string { return []string{dropHyphensUpperX(p)} }
func (uuid) NormalizePrefix(p string) []string { return []string{lowerString(p)} }

// NormalizePrefix: the NBN prefix (country and sub-namespace codes) ends at
// the first "-" and is case-insensitive (RFC 8458 §4.3); what follows keeps
// its case. A prefix with no "-" yet lies wholly inside the NBN prefix.
func (nbn) NormalizePrefix(p string) []string {
	i := strings.IndexByte(p, '-')
	if i < 0 {
		i = len(p)
	}
	return []string{lowerString(p[:i]) + p[i:]}
}

// NormalizePrefix: RFC 3187's key drops hyphens, so a name under p has a
// key under p without them; and an ISBN-10 under p has the ISBN-13 key
// "978" + its first nine digits + a new check digit, so while p can still
// begin an ISBN-10 (at most nine digits, or a whole valid one) its keys lie
// under "978" + p as well.
func (isbn) NormalizePrefix(p string) []string {
	k := dropHyphensUpperX(p)
	out := []string{k}
	switch {
	case len(k) < 10 && allDigits(k):
		out = append(out, "978"+k)
	case len(k) == 10 && isbn10Valid(k):
		b := append([]byte("978"), k[:9]...)
		out = append(out, string(append(b, isbn13Check(b))))
	}
	return out
}
