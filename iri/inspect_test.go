package iri

import (
	"reflect"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"https://bücher.example/Köln", nil},
		{"https://ja.wikipedia.org/wiki/東京", nil},
		{"http://日本語テキストabc.jp/", nil},                            // Han, Katakana and Latin: Japanese, highly restrictive
		{"http://한국어abc.kr/", nil},                                // Hangul and Latin
		{"http://مثال.إختبار/", nil},                              // RTL labels that start and end with RTL letters
		{"http://раураl.com/", []string{CodeMixedScript}},         // Cyrillic р, а, у with Latin l
		{"http://xn--l-7sbab1cb.com/", []string{CodeMixedScript}}, // the same as a URI, decoded for the check
		{"http://pаypal.com/", []string{CodeMixedScript}},
		{"http://αβγabc.example/", []string{CodeMixedScript}},
		{"http://example.com⁄login.evil.example/", []string{CodeConfusableDelimiter}}, // U+2044 in the host
		{"http://example.com／evil/", []string{CodeConfusableDelimiter}},
		{"http://example．com/", []string{CodeConfusableDelimiter}},
		{"http://a/b：c", []string{CodeConfusableDelimiter}},
		{"http://a/%EF%BC%8F", []string{CodeConfusableDelimiter}}, // percent-encoded: judged by the IRI form
		{"http://a/%E2%80%AEfdp.exe", []string{CodeBidi}},         // an encoded RLO
		{"http://a/%e2%80%8f", []string{CodeBidi}},
		{"http://a/\u05d0b", []string{CodeBidi}},   // RTL and LTR letters mixed in one segment (§4.2 rule 1)
		{"http://a/\u05d01", []string{CodeBidi}},   // RTL text ending with a digit (§4.2 rule 2, example 8)
		{"http://a/\u05d0%31", []string{CodeBidi}}, // ... percent-encoded (example 9)
		{"http://a/\u05d0\u05d1/1", nil},           // digits in a component of their own are allowed (example 10)
		{"http://ab.\u05d0\u05d1.ij/", nil},        // example 1
		{"http://a/?\u05d0=\u05d1&x=y", nil},       // query names and values are components
		{"http://раураl.com⁄x/%E2%80%AE\u05d0b", []string{CodeBidi, CodeConfusableDelimiter, CodeMixedScript}},
	}
	for _, tt := range tests {
		ws, err := InspectString(tt.in)
		if err != nil {
			t.Errorf("InspectString(%q): %v", tt.in, err)
			continue
		}
		got := Codes(ws)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("InspectString(%q) = %v, want %v", tt.in, ws, tt.want)
		}
		for _, w := range ws {
			if w.Message == "" || !strings.Contains(w.Message, "RFC 3987") {
				t.Errorf("%q: a warning without a message citing the RFC: %+v", tt.in, w)
			}
		}
	}
	if _, err := InspectString("http://a/\u202e"); err == nil {
		t.Error("InspectString accepted a raw bidi formatting character")
	}
}
