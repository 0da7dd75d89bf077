package urn

// The query directives of the 2012 rfc2141bis draft (draft-ietf-urnbis-
// rfc2141bis-urn-03 §2.3, October 2012): a list of keywd=value pairs that asks a
// resolver for a service (s=) or a component (c=). RFC 8141 moved such
// parameters to the r-component, so both spellings are accepted:
//
//	urn:isbn:0-395-36341-1?s=I2L&c=ToC    (the draft's form, a URI reference)
//	urn:isbn:0-395-36341-1?+s=I2L&c=ToC   (inside an RFC 8141 r-component)

// Directive is one keywd=value pair, as written (still percent-encoded).
type Directive struct {
	Keyword string
	Value   string
}

// Directives is a parsed directive list.
type Directives struct {
	// List holds the directives in order, without those whose keyword was
	// given more than once.
	List []Directive
	// Ignored lists the keywords given more than once: the draft §2.3 says
	// a resolver "MUST ignore all query directives therein using the
	// offending <keywd>(s)", so none of their values count.
	Ignored []string
}

// Resolution services of the draft §9.2.2 (from RFC 2483 §4).
var services = [...]string{"I2L", "I2Ls", "I2R", "I2Rs", "I2C", "I2Cs", "I2N", "I2Ns", "I=I"}

// IsService reports whether s names a resolution service of the draft's
// registry (case-sensitive, as directives are).
func IsService(s string) bool {
	for _, v := range services {
		if s == v {
			return true
		}
	}
	return false
}

// Get returns the value of keyword, unless it is absent or was ignored as
// a duplicate.
func (d Directives) Get(keyword string) (string, bool) {
	for _, x := range d.List {
		if x.Keyword == keyword {
			return x.Value, true
		}
	}
	return "", false
}

// Service returns the requested resolution service (s=) when it is one the
// draft registers; a resolver falls back to the namespace's default service
// otherwise (draft §2.3.1).
func (d Directives) Service() (string, bool) {
	v, ok := d.Get("s")
	if !ok || !IsService(v) {
		return "", false
	}
	return v, true
}

// Component returns the c= directive, the component of a structured
// resource (draft §2.3.2).
func (d Directives) Component() (string, bool) { return d.Get("c") }

// ParseDirectives parses a directive list:
//
//	urn-query = directive *( "&" directive )
//	directive = keywd "=" value
//	keywd     = ALPHA *( ["-"] (ALPHA / DIGIT) )
//	value     = *v-pchar    ; pchar, "/" and "?", but no "&"
func ParseDirectives(query string) (Directives, error) {
	return parseDirectives(query, 0, len(query))
}

// parseDirectives parses s[start:end], reporting offsets in s.
func parseDirectives(s string, start, end int) (Directives, error) {
	var d Directives
	if start == end {
		return d, errorf(ErrInvalidDirective, s, start, "empty directive list")
	}
	i := start
	for {
		// keywd
		k := i
		if i == end || class[s[i]]&cAlnum == 0 || s[i] <= '9' {
			return Directives{}, errorf(ErrInvalidDirective, s, i, "directive keyword must start with a letter")
		}
		i++
		for i < end && (class[s[i]]&cAlnum != 0 || s[i] == '-' && i+1 < end && class[s[i+1]]&cAlnum != 0) {
			i++
		}
		kw := s[k:i]
		if i == end || s[i] != '=' {
			return Directives{}, errorf(ErrInvalidDirective, s, i, `directive keyword %q not followed by "="`, kw)
		}
		i++
		v := i
		for i < end && s[i] != '&' {
			c := s[i]
			switch {
			case class[c]&cPchar != 0 || c == '/' || c == '?':
				i++
			case c == '%':
				if err := checkPct(s[:end], i, "directive value"); err != nil {
					return Directives{}, err
				}
				i += 3
			default:
				return Directives{}, badChar(ErrInvalidDirective, s, i, "directive value")
			}
		}
		d.add(Directive{Keyword: kw, Value: s[v:i]})
		if i == end {
			return d, nil
		}
		i++ // "&"
	}
}

// add appends x unless its keyword was already seen; a repeated keyword
// removes every directive with it (draft §2.3).
func (d *Directives) add(x Directive) {
	for _, k := range d.Ignored {
		if k == x.Keyword {
			return
		}
	}
	for j, y := range d.List {
		if y.Keyword == x.Keyword {
			d.List = append(d.List[:j], d.List[j+1:]...)
			d.Ignored = append(d.Ignored, x.Keyword)
			return
		}
	}
	d.List = append(d.List, x)
}

// Request is a URN with the directives that ask a resolver for a service.
type Request struct {
	URN        URN
	Directives Directives
	// Draft is true for the draft's plain "?" query form.
	Draft bool
	// Fragment is the "#" part of a draft-form reference (for an RFC 8141
	// URN it is URN.FComponent).
	Fragment    string
	HasFragment bool
	// DirectiveErr is set when an RFC 8141 r-component is not a directive
	// list; r-components of other forms are allowed (RFC 8141 §2.3.1) and
	// simply give no directives.
	DirectiveErr error
}

// ParseRequest parses a URN with directives in either form: an RFC 8141 URN
// whose r-component holds the list ("?+s=I2L"), or the draft's URI reference
// to a URN with a plain query ("?s=I2L"), which must be a valid RFC 3986
// reference whose part before "?" is a valid URN.
func ParseRequest(s string) (Request, error) {
	u, err := Parse(s)
	if err == nil {
		req := Request{URN: u}
		if r, ok := u.RComponent(); ok {
			d, derr := ParseDirectives(r)
			if derr != nil {
				req.DirectiveErr = derr
			} else {
				req.Directives = d
			}
		}
		return req, nil
	}
	// The draft form: find the "?" that is not "?+" or "?=".
	// The parser reports the byte after such a '?'.
	e, _ := err.(*Error)
	if e == nil || e.Kind != ErrPlainQuery {
		return Request{}, err
	}
	q := e.Offset - 1
	base, berr := Parse(s[:q])
	if berr != nil {
		return Request{}, err
	}
	end := len(s)
	req := Request{URN: base, Draft: true}
	for j := q + 1; j < len(s); j++ {
		if s[j] == '#' {
			end = j
			if ferr := checkFragment(s, j+1); ferr != nil {
				return Request{}, ferr
			}
			req.Fragment, req.HasFragment = s[j+1:], true
			break
		}
	}
	d, derr := parseDirectives(s, q+1, end)
	if derr != nil {
		return Request{}, derr
	}
	req.Directives = d
	return req, nil
}
