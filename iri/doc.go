// Package iri implements RFC 3987, Internationalized Resource Identifiers:
// URIs written with the letters of any script (https://bücher.example/,
// https://ja.wikipedia.org/wiki/東京).
//
// An IRI value is one string plus the offsets of its components, in the
// manner of uri.URI and net/netip: small, immutable, comparable with ==,
// and parsing a valid IRI allocates nothing. The accessors are uri.URI's.
//
// The parser accepts exactly the grammar of RFC 3987 §2.2: the URI grammar
// of RFC 3986 with ucschar allowed wherever iunreserved is (every
// component but the scheme, the port and an IP literal) and iprivate in the
// query. The bidi formatting characters of §4.1 (U+200E, U+200F, U+202A to
// U+202E) are ucschar by the ABNF, but §4.1 says an IRI MUST NOT contain
// them: they are refused wherever they stand. Text is read as UTF-8;
// invalid UTF-8 is an error. Every error is an *Error with the byte offset
// of the offending character.
//
// Beyond parsing:
//
//   - IRI.URI maps an IRI to its URI (§3.1, the non-ASCII characters
//     percent-encoded); IRI.URIWithIDNA converts an internationalized host
//     by IDNA instead (UTS #46 with the WHATWG URL Standard's options, see
//     DomainToASCII), which is what a browser fetches.
//   - FromURI turns a URI back into the IRI a person should see (§3.2),
//     never decoding what would change its meaning: reserved characters,
//     "%", bytes that are not UTF-8, bidi formatting characters.
//   - IRI.Resolve resolves references as IRIs (§6.5), IRI.Normalize and
//     Equal climb the comparison ladder of §5.3.
//   - Inspect warns of the spoofing cases of §4 and §8: mixed scripts in a
//     host label, bidi text that does not read as stored, characters that
//     look like delimiters.
//
// Unicode normalization: an IRI is taken as the characters it holds. RFC
// 3987 asks for NFC (Normalization Form C) in two places only: when an IRI
// is made from a non-digital form (typed from paper, heard) or transcoded
// from a non-Unicode encoding (§3.1 step 1 a and b, §5.3.2.2), which is
// what NFC is for, and for the host names of the scheme-based rung of
// comparison (§5.3.3), where the IDNA mapping applies it. Text that is
// already UTF-8 "MUST NOT" be normalized on the way to a URI (§3.1 step 1
// c), and comparison "MUST rely on the assumption that IRIs are
// appropriately pre-character-normalized" (§5.3.2.2). NFC and not NFKC:
// canonical equivalents look the same, while NFKC also folds compatibility
// characters (full-width letters, ligatures, superscripts) into others and
// so changes what was written.
package iri

import "golang.org/x/text/unicode/norm"

// NFC returns s in Unicode Normalization Form C. Use it on an IRI that
// comes from a non-digital form or from a non-Unicode character encoding
// before parsing it, as RFC 3987 §3.1 step 1 (a, b) requires; never on an
// IRI that was already Unicode text (step 1 c).
func NFC(s string) string { return norm.NFC.String(s) }
