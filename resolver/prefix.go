package resolver

import (
	"fmt"
	"strings"

	"github.com/urikit/urikit/urn"
)

// CanonicalPrefix checks a name prefix — "urn:" NID ":" and the start of an
// NSS, such as "urn:nbn:de:101-" or "urn:isbn:" — and returns it in RFC 8141
// §3.1 canonical form ("urn" and the NID in lower case, the hex digits of
// percent-encodings in upper case), the form in which prefixes are compared.
// "urn:NID" without the second colon means the whole namespace. The offset
// in an error is a byte offset into p.
func CanonicalPrefix(p string) (string, error) {
	if len(p) < 4 || !strings.EqualFold(p[:4], "urn:") {
		return "", invalid("prefix", 0, `a prefix starts with "urn:" and a namespace identifier`)
	}
	if len(p) > MaxURNBytes {
		return "", invalid("prefix", MaxURNBytes, "a prefix has at most %d bytes", MaxURNBytes)
	}
	nid, rest, hasColon := strings.Cut(p[4:], ":")
	if !hasColon {
		rest = ""
	}
	// A percent-encoding is one character of the NSS, compared as a unit
	// (RFC 8141 §3.1: its hex digits case-insensitively). A prefix that
	// stops inside one is not the start of any NSS; the parser below would
	// not see it when the stand-in character completes it ("%4" + "0").
	if i := strings.LastIndexByte(rest, '%'); i >= 0 && len(rest)-i < 3 {
		return "", invalid("prefix", 4+len(nid)+1+i, "a prefix cannot end inside a percent-encoding")
	}
	// Check the prefix with the URN parser: it is a URN's assigned name cut
	// short, so it parses once an NSS character stands in for what follows.
	probe := "urn:" + nid + ":" + rest + "0"
	u, err := urn.Parse(probe)
	if err != nil {
		off := -1
		if ue, ok := err.(*urn.Error); ok {
			off = ue.Offset
			if !hasColon && off > 4+len(nid) {
				off = len(p)
			}
			if off > len(p) {
				off = len(p)
			}
		}
		return "", invalid("prefix", off, "not the start of a URN: %s", reasonOf(err))
	}
	if _, ok := u.RComponent(); ok || strings.ContainsAny(rest, "?#") {
		i := strings.IndexAny(p, "?#")
		return "", invalid("prefix", i, "a prefix is part of a name: no ?+, ?= or # components")
	}
	c := u.CanonicalString()
	return c[:len(c)-1], nil
}

// HasPrefix reports whether the name whose canonical form is canonicalName
// lies under the canonical prefix p.
func HasPrefix(canonicalName, p string) bool {
	return strings.HasPrefix(canonicalName, p)
}

// PrefixesOverlap reports whether two canonical prefixes could hold the
// same name or equivalent names: when one is a prefix of the other, or when
// the keys of the names under them could meet (urn.KeyPrefixes), as the
// keys of urn:nbn:DE:101- and urn:nbn:de:101- do (RFC 8458 §4.3), or those
// of urn:isbn:0 and urn:isbn:978-0- (an ISBN-10 and its ISBN-13, RFC 3187).
// Writes go by both forms (mayWriteForms), so prefixes that overlap in
// either would leave names that two authorities own, or none can write.
func PrefixesOverlap(a, b string) bool {
	if lexicalOverlap(a, b) {
		return true
	}
	ka, kb := urn.KeyPrefixes(a), urn.KeyPrefixes(b)
	for _, x := range ka {
		for _, y := range kb {
			if lexicalOverlap(x, y) {
				return true
			}
		}
	}
	return false
}

// overlapReason explains an overlap that is not lexical.
func overlapReason(a, b string) string {
	if lexicalOverlap(a, b) {
		return ""
	}
	nid, _, _ := strings.Cut(a[min(4, len(a)):], ":")
	return fmt.Sprintf(": names under both are equivalent by the rules of the %s namespace", nid)
}

func lexicalOverlap(a, b string) bool {
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// underKeyPrefix reports whether key (urn.URN.Key) lies under one of the
// key prefixes of the canonical prefix p, and how long the match is.
func underKeyPrefix(key, p string) (int, bool) {
	best, ok := 0, false
	for _, k := range urn.KeyPrefixes(p) {
		if strings.HasPrefix(key, k) && (!ok || len(k) > best) {
			best, ok = len(k), true
		}
	}
	return best, ok
}

// LongestRule returns the rule with the longest prefix that the name whose
// canonical form is canonicalName lies under (RFC 2276's delegation: the
// most specific rule wins).
func LongestRule(rules []Rule, canonicalName string) (Rule, bool) {
	best, found := Rule{}, false
	for _, r := range rules {
		if HasPrefix(canonicalName, r.Prefix) && (!found || len(r.Prefix) > len(best.Prefix)) {
			best, found = r, true
		}
	}
	return best, found
}

// RuleFor returns the rule name takes: the rule with the longest prefix
// that its canonical form or its key form (urn.URN.Key, the form of its
// namespace's own equivalence) lies under, the canonical form's on a tie.
// By its key form urn:nbn:DE:101-1 is urn:nbn:de:101-1 (RFC 8458 §4.3),
// and equivalent names go where the same rule sends them. form is the
// form the rule's prefix starts.
func RuleFor(rules []Rule, name urn.URN) (r Rule, form string, ok bool) {
	form = name.CanonicalString()
	r, ok = LongestRule(rules, form)
	if k := name.Key(); k != form {
		if kr, kok := LongestRule(rules, k); kok && (!ok || len(kr.Prefix) > len(r.Prefix)) {
			return kr, k, true
		}
	}
	if !ok {
		return Rule{}, "", false
	}
	return r, form, true
}

func reasonOf(err error) string {
	if ue, ok := err.(*urn.Error); ok {
		return ue.Reason
	}
	return err.Error()
}
