package uri

import "strings"

// RFC 3986 gives a query no inner structure (§3.4). Most queries on the
// web carry one all the same: name=value pairs joined by '&', the
// application/x-www-form-urlencoded format of HTML forms, specified by the
// WHATWG URL Standard (§5, "application/x-www-form-urlencoded"), where a
// '+' stands for a space. This file reads and writes that format.

// Param is one name=value pair of a form-encoded query, decoded.
type Param struct {
	Name  string
	Value string
}

// Params is a form-encoded query decoded into its pairs, in the order they
// came, a repeated name kept as often as it occurs. Unlike net/url.Values
// (a map), it keeps that order, and Encode writes it back.
type Params []Param

// ParseQuery reads query, the text after a '?' as URI.Query returns it, as
// application/x-www-form-urlencoded: the pairs are separated by '&' (and by
// nothing else: a ';' is data, as in the WHATWG URL Standard), a pair's
// name ends at its first '=' (a pair without one has an empty value),
// empty pairs are skipped, and in names and values '+' stands for a space
// and %XX for the byte XX.
//
// The query must be valid RFC 3986 query text (§3.4): a character a URI
// cannot hold, or a '%' without two hex digits, is an *Error with its
// offset in query.
func ParseQuery(query string) (Params, error) {
	if i := scanWords(query, 0, &wordQuery); i < len(query) {
		return nil, errComponent(ErrInvalidQuery, query, i, "query")
	}
	return parseForm(query), nil
}

// QueryParams returns the query of u read as ParseQuery does: nil when
// there is no query or it is empty.
func (u URI) QueryParams() Params { return parseForm(u.Query()) }

// QueryValue returns the value of the first pair of u's query that has the
// given (decoded) name, decoded; ok is false when no pair has it. It reads
// the query as ParseQuery does, without making a Params, and allocates
// only to decode a value that holds a '+' or a percent-encoding.
func (u URI) QueryValue(name string) (value string, ok bool) {
	q := u.Query()
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		n, v, _ := strings.Cut(pair, "=")
		if pair != "" && formEqual(n, name) {
			return formUnescape(v), true
		}
	}
	return "", false
}

// parseForm splits q, whose percent-encodings are valid, into its pairs.
func parseForm(q string) Params {
	if q == "" {
		return nil
	}
	ps := make(Params, 0, strings.Count(q, "&")+1)
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" {
			continue
		}
		n, v, _ := strings.Cut(pair, "=")
		ps = append(ps, Param{formUnescape(n), formUnescape(v)})
	}
	if len(ps) == 0 {
		return nil // "&&": no pairs
	}
	return ps
}

// formUnescape decodes a name or value: '+' is a space, %XX the byte XX
// (the encodings are known to be valid).
func formUnescape(s string) string {
	if strings.IndexByte(s, '+') < 0 {
		return unescape(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// formEqual reports whether the raw name decodes to name, without
// decoding it into a new string.
func formEqual(raw, name string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '+':
			c = ' '
		case c == '%' && i+2 < len(raw):
			c = unhex(raw[i+1])<<4 | unhex(raw[i+2])
			i += 2
		}
		if j == len(name) || name[j] != c {
			return false
		}
		j++
	}
	return j == len(name)
}

// Get returns the value of the first pair named name, or "" when there is
// none (Has tells an empty value from a missing one).
func (ps Params) Get(name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// Has reports whether a pair is named name.
func (ps Params) Has(name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Values returns the values of all the pairs named name, in order.
func (ps Params) Values(name string) []string {
	var vs []string
	for _, p := range ps {
		if p.Name == name {
			vs = append(vs, p.Value)
		}
	}
	return vs
}

// Add appends the pair name=value.
func (ps *Params) Add(name, value string) { *ps = append(*ps, Param{name, value}) }

// Set gives the first pair named name the value value and removes the
// other pairs of that name, or appends name=value when there is none (the
// URLSearchParams.set of the WHATWG URL Standard).
func (ps *Params) Set(name, value string) {
	out := (*ps)[:0]
	found := false
	for _, p := range *ps {
		if p.Name == name {
			if found {
				continue
			}
			found = true
			p.Value = value
		}
		out = append(out, p)
	}
	clear((*ps)[len(out):]) // no stale strings past the end
	if !found {
		out = append(out, Param{name, value})
	}
	*ps = out
}

// Del removes every pair named name.
func (ps *Params) Del(name string) {
	out := (*ps)[:0]
	for _, p := range *ps {
		if p.Name != name {
			out = append(out, p)
		}
	}
	clear((*ps)[len(out):])
	*ps = out
}

// Encode writes the pairs as an application/x-www-form-urlencoded query,
// "name=value" joined by '&', for URI.WithQuery. In names and values a
// space becomes '+', and every byte that ComponentQueryValue does not keep
// becomes %XX, '&', '=', '+' and ';' among them; a pair with an empty value
// is written "name=". ParseQuery gives the same pairs back.
func (ps Params) Encode() string { return string(ps.AppendEncode(nil)) }

// AppendEncode appends the text of Encode to dst.
func (ps Params) AppendEncode(dst []byte) []byte {
	for i, p := range ps {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = appendFormEscape(dst, p.Name)
		dst = append(dst, '=')
		dst = appendFormEscape(dst, p.Value)
	}
	return dst
}

func appendFormEscape(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case is(c, cQueryValue):
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst
}
