package httpapi

import "strings"

// Media types the resolver answers with.
const (
	mtURIList = "text/uri-list"
	mtJSON    = "application/json"
	mtHTML    = "text/html"
	mtProblem = "application/problem+json"

	// A CSL item (csl.go). application/citeproc+json is an older name
	// for the same data that DOI content negotiation answers too: the
	// crosscite documentation's example Accept header names it, and
	// scripts against doi.org send it.
	mtCSL      = "application/vnd.citationstyles.csl+json"
	mtCiteproc = "application/citeproc+json"
)

// Offers, in the server's order of preference: when the client likes two
// equally, the first wins. text/uri-list comes first for lists (RFC 2169
// §3.2: "at a minimum the resolver should support the text/uri-list media
// type"), so a client that sends no Accept, or */*, gets it.
var (
	listOffers    = []string{mtURIList, mtJSON, mtHTML}
	urcOffers     = []string{mtJSON, mtHTML, mtCSL, mtCiteproc} // one description
	urcsOffers    = []string{mtJSON, mtHTML}                    // I2Cs: several, which no CSL item holds
	problemOffers = []string{mtProblem, mtJSON, mtHTML}
)

const offerHTML = mtHTML

// negotiate returns the offer the Accept header prefers (RFC 9110
// §12.5.1): each offer gets the quality of the most specific media range
// that matches it, the highest quality wins and ties go to the earlier
// offer. It returns "" when the header accepts none of them. A missing or
// empty header accepts anything.
func negotiate(accept string, offers []string) string {
	if strings.TrimSpace(accept) == "" {
		return offers[0]
	}
	best, bestQ := "", 0
	for _, o := range offers {
		if q := acceptQ(accept, o); q > bestQ {
			best, bestQ = o, q
		}
	}
	return best
}

// acceptQ returns the quality, in thousandths, that the Accept header
// gives media type mt (type/subtype, no parameters): that of the most
// specific range matching it, or -1 when no range matches.
func acceptQ(accept, mt string) int {
	typ, sub, _ := strings.Cut(mt, "/")
	q, spec := -1, -1
	for rest := accept; rest != ""; {
		var rng string
		rng, rest, _ = strings.Cut(rest, ",")
		rng = strings.TrimSpace(rng)
		if rng == "" {
			continue
		}
		name, params, _ := strings.Cut(rng, ";")
		rt, rs, ok := strings.Cut(strings.TrimSpace(name), "/")
		if !ok {
			continue // not a media range: ignore it
		}
		s := -1
		switch {
		case rt == "*" && rs == "*":
			s = 0
		case strings.EqualFold(rt, typ) && rs == "*":
			s = 1
		case strings.EqualFold(rt, typ) && strings.EqualFold(rs, sub):
			s = 2
		}
		if s <= spec {
			continue
		}
		rq, ok := qParam(params)
		if !ok {
			continue
		}
		q, spec = rq, s
	}
	return q
}

// qParam finds the weight among a media range's parameters (RFC 9110
// §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )).
// No weight means 1; a malformed one makes the range unusable.
func qParam(params string) (int, bool) {
	for rest := params; rest != ""; {
		var p string
		p, rest, _ = strings.Cut(rest, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		return parseQ(strings.TrimSpace(v))
	}
	return 1000, true
}

func parseQ(v string) (int, bool) {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' {
		return 0, false
	}
	scale := 100
	for _, c := range []byte(v[2:]) {
		if c < '0' || c > '9' || q == 1000 && c != '0' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	return q, true
}
