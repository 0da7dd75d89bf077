// Package extract finds the URIs written in free text — mail, news, chat,
// documents, print — following the recommendations for delimiting a URI in
// context (RFC 3986 Appendix C, the 1997 and 2003 drafts' Appendix E) as the
// extract op of the batch protocol spells them out.
//
// A Scanner reads an io.Reader of any size in constant memory and yields
// each URI with its byte offset, its line and the wrapper that delimited it.
// Every URI it yields is a valid RFC 3986 URI with a scheme (uri.Parse
// accepts it):
//
//   - Wrapped: inside <...> (also <URL:...>) any valid URI counts, and the
//     whitespace and line breaks inside the brackets are dropped; inside
//     "..." or '...' (also with a URL: prefix) any valid URI without
//     whitespace counts. A quote opens only when no letter or digit comes
//     before it and closes only when none comes after it. A wrapper whose
//     content is not a URI counts for nothing: scanning goes on just after
//     its opening character.
//   - Bare: a candidate starts at an ASCII letter that begins the text or
//     follows anything but an ASCII letter or digit; its scheme is followed
//     by "://", or is registered with IANA and followed by ":". It ends at
//     whitespace, at a character no URI holds, or at a '[' or ']' that is
//     not around an IP literal host; then trailing sentence punctuation and
//     closing brackets without their opening partner are dropped.
//   - "scheme:" and "scheme://" alone are mentions of a scheme, never URIs,
//     and no URI has the scheme "URL": that is only ever a prefix.
//
// See the README section of this package for the rules in full and for
// where they go beyond the protocol's text.
package extract

import "strings"

// DefaultMaxLen is the longest candidate a Scanner considers, in bytes, when
// Options.MaxLen is zero. It bounds the Scanner's memory.
const DefaultMaxLen = 64 << 10

// The Wrapper of a Match: what delimited the URI in the text.
const (
	Bare           = ""       // delimited by whitespace or punctuation
	Angle          = "<>"     // <http://example.com/>
	AngleURL       = "<URL:>" // <URL:http://example.com/>
	DoubleQuote    = `""`     // "http://example.com/"
	DoubleQuoteURL = `"URL:"` // "URL:http://example.com/"
	SingleQuote    = "''"     // 'http://example.com/'
	SingleQuoteURL = "'URL:'" // 'URL:http://example.com/'
	URLPrefix      = "URL:"   // URL: http://example.com/ (no brackets)
)

// Match is one URI found in the text.
type Match struct {
	// URI is the URI as written, wrappers removed; inside <...> the
	// whitespace and line breaks are removed too.
	URI string
	// Offset is the byte offset of the URI's first byte in the input.
	Offset int64
	// End is the byte offset just after the URI's last byte in the input.
	// End-Offset is len(URI) except when <...> held whitespace.
	End int64
	// Line is the 1-based line number of Offset (lines end at '\n').
	Line int
	// Wrapper says what delimited the URI: Bare, Angle, AngleURL,
	// DoubleQuote, DoubleQuoteURL, SingleQuote, SingleQuoteURL or URLPrefix.
	Wrapper string
}

// Options tune a Scanner. The zero value is the default.
type Options struct {
	// MaxLen is the longest candidate considered, in bytes: the text of a
	// bare URI, or everything between a wrapper's opening and closing
	// characters. A longer one is not taken (URIs written inside it still
	// may be). Zero means DefaultMaxLen; values below 64 are raised to 64.
	MaxLen int
	// IRI finds IRIs (RFC 3987) as written, non-ASCII text and all: every
	// Match is then a valid IRI with a scheme (iri.Parse accepts it), the
	// batch protocol's extract with "iri":true. Without it no candidate
	// that holds non-ASCII text is returned, not even in part: a link cut
	// at its first non-ASCII character would point somewhere else.
	IRI bool
}

// All returns the URIs in text, in order of appearance, as a Scanner
// with the default Options finds them.
func All(text string) []Match {
	var out []Match
	sc := NewScanner(strings.NewReader(text), Options{})
	for sc.Scan() {
		out = append(out, sc.Match())
	}
	return out
}

// Strings returns the URIs in text as strings, in order of appearance: the
// result of the batch protocol's extract op.
func Strings(text string) []string { return StringsWith(text, Options{}) }

// StringsWith is Strings with options (Options.IRI for the extract op with
// "iri":true).
func StringsWith(text string, opts Options) []string {
	out := []string{}
	sc := NewScanner(strings.NewReader(text), opts)
	for sc.Scan() {
		out = append(out, sc.Match().URI)
	}
	return out
}
