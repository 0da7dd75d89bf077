package iri

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/runenames"
)

// Warning codes of Inspect, stable for scripts. They add to the codes of
// package scheme's RFC 3986 §7 inspection; the batch protocol's inspect op
// does not report them.
const (
	// CodeBidi: a bidi formatting character, percent-encoded (RFC 3987 §4.1
	// forbids it unencoded: decoded for display it would reorder the
	// text), or a component that breaks the rules of §4.2 (right-to-left
	// and left-to-right letters mixed, or right-to-left text that does not
	// start and end with a right-to-left letter), so that the IRI does not
	// read as it is stored (§8).
	CodeBidi = "bidi"
	// CodeConfusableDelimiter: a character that looks like an ASCII
	// delimiter of a URI ("／" FULLWIDTH SOLIDUS, "⁄" FRACTION SLASH, "："
	// FULLWIDTH COLON, "．" FULLWIDTH FULL STOP, ...) but is none, so that
	// what reads as a host followed by a path is one long host (§8, UTS #39).
	CodeConfusableDelimiter = "confusable-delimiter"
	// CodeMixedScript: a host label that mixes scripts (Latin with
	// Cyrillic, say), the classic look-alike host (§8, UTS #39 §5.2:
	// anything beyond "Highly Restrictive").
	CodeMixedScript = "mixed-script"
)

// Warning is one finding of Inspect.
type Warning struct {
	Code    string // one of the Code constants
	Message string // one sentence for a person
}

// Inspect checks x against the spoofing cases of RFC 3987 §4 and §8 and
// returns its warnings sorted by code, each code at most once. It looks at
// the IRI form of x (FromURI of its URI), so that a URI whose
// percent-encodings hide look-alike or bidi characters is judged by what a
// reader would be shown, and at the Unicode form of each "xn--" host label.
func Inspect(x IRI) []Warning {
	y, err := FromURI(x.URI())
	if err != nil {
		y = x
	}
	seen := map[string]bool{}
	var ws []Warning
	add := func(code, format string, args ...any) {
		if seen[code] {
			return
		}
		seen[code] = true
		ws = append(ws, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}

	// The host labels, "xn--" ones decoded (§3.2 allows it for display).
	var labels []string
	if y.HasAuthority() && y.HostKind().String() == "reg-name" {
		for label := range strings.SplitSeq(y.Host(), ".") {
			if len(label) > 4 && strings.EqualFold(label[:4], "xn--") {
				if u, err := idna.Punycode.ToUnicode(strings.ToLower(label)); err == nil {
					label = u
				}
			}
			labels = append(labels, label)
		}
	}

	// Bidi formatting characters, percent-encoded (unencoded they make the
	// IRI invalid, and the parser refuses it).
	if c, ok := encodedBidiFormat(y.s); ok {
		add(CodeBidi, "the IRI holds the bidi formatting character %U %s, percent-encoded; shown decoded it would reorder what a reader sees (RFC 3987 §4.1)", c, runenames.Name(c))
	}
	// §4.2 on each component.
	for _, c := range bidiComponents(y, labels) {
		if why := bidiBreak(c.text); why != "" {
			add(CodeBidi, "the %s %q %s, so it may not read as it is stored (RFC 3987 §4.2)", c.name, c.text, why)
		}
	}

	// Look-alikes of delimiters, anywhere in the IRI or its host.
	for _, part := range append([]string{y.s}, labels...) {
		for _, r := range part {
			if d, ok := confusable[r]; ok {
				add(CodeConfusableDelimiter, "the IRI holds %U %s, which looks like %q but delimits nothing: the component it stands in goes on past it (RFC 3987 §8, UTS #39)", r, runenames.Name(r), d)
			}
		}
	}

	for _, label := range labels {
		if scripts := mixedScripts(label); scripts != "" {
			add(CodeMixedScript, "the host label %q mixes the scripts %s, as look-alike hosts do (RFC 3987 §8, UTS #39 §5.2)", label, scripts)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Code < ws[j].Code })
	return ws
}

// InspectString parses s as an IRI reference (any URI reference is one)
// and inspects it.
func InspectString(s string) ([]Warning, error) {
	x, err := ParseReference(s)
	if err != nil {
		return nil, err
	}
	return Inspect(x), nil
}

// Codes returns the codes of ws in order.
func Codes(ws []Warning) []string {
	c := make([]string, len(ws))
	for i, w := range ws {
		c[i] = w.Code
	}
	return c
}

// encodedBidiFormat finds a percent-encoded bidi formatting character
// (%E2%80%8E, %E2%80%8F, %E2%80%AA to %E2%80%AE, any case of hex).
func encodedBidiFormat(s string) (rune, bool) {
	for i := 0; i+9 <= len(s); i++ {
		if s[i] != '%' || !strings.EqualFold(s[i:i+6], "%E2%80") || s[i+6] != '%' {
			continue
		}
		if !is(s[i+7], cHex) || !is(s[i+8], cHex) {
			continue
		}
		v := unhex(s[i+7])<<4 | unhex(s[i+8])
		if v&0xC0 != 0x80 {
			continue // no continuation byte: not UTF-8
		}
		r := 0x2000 | rune(v&0x3F) // E2 80 v is U+2000 + (v & 0x3F)
		if isBidiFormat(r) {
			return r, true
		}
	}
	return 0, false
}

type component struct{ name, text string }

// bidiComponents lists the components of RFC 3987 §4.2: iuserinfo, each
// label of ireg-name (RFC 3490 takes labels as the components of a domain
// name), each path segment, each name and value of the query (the RFC's
// own suggestion), and the fragment.
func bidiComponents(y IRI, labels []string) []component {
	var cs []component
	if y.HasUserinfo() {
		cs = append(cs, component{"userinfo", y.Userinfo()})
	}
	for _, l := range labels {
		cs = append(cs, component{"host label", l})
	}
	for seg := range strings.SplitSeq(y.Path(), "/") {
		cs = append(cs, component{"path segment", seg})
	}
	if y.HasQuery() {
		for _, part := range strings.FieldsFunc(y.Query(), func(r rune) bool { return r == '&' || r == ';' || r == '=' }) {
			cs = append(cs, component{"query part", part})
		}
	}
	if y.HasFragment() {
		cs = append(cs, component{"fragment", y.Fragment()})
	}
	return cs
}

// bidiBreak says how text breaks the two rules of RFC 3987 §4.2, or "".
func bidiBreak(text string) string {
	if isASCII(text) || text == "" {
		return ""
	}
	var rtl, ltr bool
	for _, r := range text {
		switch strong(r) {
		case 'R':
			rtl = true
		case 'L':
			ltr = true
		}
	}
	if !rtl {
		return ""
	}
	if ltr {
		return "mixes right-to-left and left-to-right letters"
	}
	first, _ := utf8.DecodeRuneInString(text)
	last, _ := utf8.DecodeLastRuneInString(text)
	if strong(first) != 'R' || strong(last) != 'R' {
		return "has right-to-left letters but does not start and end with one"
	}
	return ""
}

// strong is 'R' for a right-to-left character (Bidi_Class R or AL), 'L'
// for a left-to-right one, 0 for the weak and neutral ones.
func strong(r rune) byte {
	p, _ := bidi.LookupRune(r)
	switch p.Class() {
	case bidi.R, bidi.AL:
		return 'R'
	case bidi.L:
		return 'L'
	}
	return 0
}

// mixedScripts returns the scripts of label joined by "+", when they are
// more than UTS #39's "Highly Restrictive" level allows: one script, or
// Latin with Han and Hiragana and Katakana (Japanese), with Han and
// Bopomofo (Chinese), or with Han and Hangul (Korean). Common and
// Inherited characters (digits, '-', combining marks) belong to any
// script. The Script property stands in for Script_Extensions, which the
// Go tables lack; the characters this misjudges (a few shared by several
// scripts) are not letters of the look-alike kind.
func mixedScripts(label string) string {
	var names []string
	set := map[string]bool{}
	for _, r := range label {
		n := scriptOf(r)
		if n == "" || set[n] {
			continue
		}
		set[n] = true
		names = append(names, n)
	}
	if len(names) <= 1 {
		return ""
	}
	for _, allowed := range [][]string{
		{"Latin", "Han", "Hiragana", "Katakana"},
		{"Latin", "Han", "Bopomofo"},
		{"Latin", "Han", "Hangul"},
	} {
		ok := true
		for _, n := range names {
			ok = ok && contains(allowed, n)
		}
		if ok {
			return ""
		}
	}
	sort.Strings(names)
	return strings.Join(names, "+")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scriptOf names the Script of r, "" for Common, Inherited and unassigned.
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return "Latin"
		}
		return ""
	}
	if unicode.Is(unicode.Common, r) || unicode.Is(unicode.Inherited, r) {
		return ""
	}
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// confusable maps characters that look like a URI delimiter to that
// delimiter: entries of UTS #39's confusables data whose prototype is one
// of the gen-delims "/", ":", "?", "#", "@", or ".", "%" and "\" (which
// browsers read as "/"), plus the full-width and small forms that the IDNA
// mapping turns into those delimiters. Letters and digits that are
// ordinary in their own script (Katakana ノ, Arabic-Indic zero, Devanagari
// visarga) are left out: flagging every Japanese "ノ" would bury the
// warning that matters.
var confusable = map[rune]string{
	// "/"
	0x2044: "/", 0x2215: "/", 0x2571: "/", 0x27CB: "/", 0x29F8: "/", 0xFF0F: "/",
	0x1735: "/", 0x2F03: "/", 0x3033: "/", 0x31D3: "/", 0x1D23A: "/",
	// "\"
	0xFF3C: "\\", 0x2216: "\\", 0x27CD: "\\", 0x29F5: "\\", 0x29F9: "\\", 0xFE68: "\\",
	// ":"
	0xFF1A: ":", 0xFE55: ":", 0xFE13: ":", 0x2236: ":", 0x0589: ":", 0x05C3: ":",
	0x0703: ":", 0x0704: ":", 0x16EC: ":", 0x1803: ":", 0x1809: ":", 0x205A: ":",
	0xA789: ":", 0xA4FD: ":", 0x02F8: ":", 0x02D0: ":", 0xFE30: ":",
	// "."
	0xFF0E: ".", 0x3002: ".", 0xFF61: ".", 0xFE52: ".", 0x2024: ".", 0x0701: ".",
	0x0702: ".", 0xA60E: ".", 0xA4F8: ".", 0x10A50: ".",
	// "?"
	0xFF1F: "?", 0xFE56: "?", 0x0294: "?", 0x0241: "?", 0x097D: "?",
	// "#"
	0xFF03: "#", 0xFE5F: "#", 0x266F: "#",
	// "@"
	0xFF20: "@", 0xFE6B: "@",
	// "%"
	0xFF05: "%", 0xFE6A: "%", 0x066A: "%",
}
