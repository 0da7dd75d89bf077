package urn

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDirectives(t *testing.T) {
	tests := []struct {
		in      string
		list    []Directive
		ignored []string
		errAt   int // -1 when valid
	}{
		{"s=I2L", []Directive{{"s", "I2L"}}, nil, -1},
		{"s=I2L&c=ToC", []Directive{{"s", "I2L"}, {"c", "ToC"}}, nil, -1},
		{"s=I2L&c=ToC&s=I2R", []Directive{{"c", "ToC"}}, []string{"s"}, -1},
		{"s=I2L&s=I2R&s=I2C&c=x", []Directive{{"c", "x"}}, []string{"s"}, -1},
		{"x-y=a/b?c=d:e@f%2F", []Directive{{"x-y", "a/b?c=d:e@f%2F"}}, nil, -1},
		{"s=", []Directive{{"s", ""}}, nil, -1},
		{"", nil, nil, 0},
		{"=x", nil, nil, 0},
		{"1s=x", nil, nil, 0},
		{"s", nil, nil, 1},
		{"s-=x", nil, nil, 1},
		{"s=I2L&", nil, nil, 6},
		{"s=a b", nil, nil, 3},
		{"s=%zz", nil, nil, 3},
	}
	for _, tt := range tests {
		d, err := ParseDirectives(tt.in)
		if tt.errAt >= 0 {
			var e *Error
			if !errors.As(err, &e) || e.Offset != tt.errAt {
				t.Errorf("ParseDirectives(%q) = %v, want error at %d", tt.in, err, tt.errAt)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(d.List, tt.list) || !reflect.DeepEqual(d.Ignored, tt.ignored) {
			t.Errorf("ParseDirectives(%q) = %+v, %v; want %+v ignored %v", tt.in, d, err, tt.list, tt.ignored)
		}
	}
}

func TestService(t *testing.T) {
	for in, want := range map[string]string{
		"s=I2L": "I2L", "s=I=I": "I=I", "s=I2Ns&c=x": "I2Ns",
		"s=I2U": "", "s=i2l": "", "c=ToC": "", "s=I2L&s=I2L": "",
	} {
		d, err := ParseDirectives(in)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := d.Service()
		if got != want || ok != (want != "") {
			t.Errorf("Service(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		in, urn, service, component string
		draft                       bool
		frag                        string
	}{
		{"urn:isbn:0-395-36341-1?s=I2L&c=ToC", "urn:isbn:0-395-36341-1", "I2L", "ToC", true, ""},
		{"urn:isbn:0-395-36341-1?s=I2L#p1", "urn:isbn:0-395-36341-1", "I2L", "", true, "p1"},
		{"urn:isbn:0-395-36341-1?+s=I2R&c=ToC", "urn:isbn:0-395-36341-1?+s=I2R&c=ToC", "I2R", "ToC", false, ""},
		{"urn:isbn:0-395-36341-1?+s=I2Rs?=x=1#f", "urn:isbn:0-395-36341-1?+s=I2Rs?=x=1#f", "I2Rs", "", false, ""},
		{"urn:isbn:0-395-36341-1", "urn:isbn:0-395-36341-1", "", "", false, ""},
		{"urn:example:foo?s=I2L&s=I2C", "urn:example:foo", "", "", true, ""},
	}
	for _, tt := range tests {
		r, err := ParseRequest(tt.in)
		if err != nil {
			t.Errorf("ParseRequest(%q): %v", tt.in, err)
			continue
		}
		s, _ := r.Directives.Service()
		c, _ := r.Directives.Component()
		if r.URN.String() != tt.urn || s != tt.service || c != tt.component || r.Draft != tt.draft || r.Fragment != tt.frag {
			t.Errorf("ParseRequest(%q) = %+v", tt.in, r)
		}
	}
	// An r-component that is no directive list is still a valid URN.
	r, err := ParseRequest("urn:example:foo-bar-baz-qux?+CCResolve:cc=uk")
	if err != nil || r.DirectiveErr == nil || len(r.Directives.List) != 0 {
		t.Errorf("opaque r-component: %+v %v", r, err)
	}
	for in, at := range map[string]int{
		"urn:isbn:x?s=a b":   14,
		"urn:isbn:x?":        11,
		"urn:isbn:x?s=1#a b": 16,
		"urn:i:x?s=I2L":      5,
		"urn:isbn:x?1=2":     11,
	} {
		_, err := ParseRequest(in)
		var e *Error
		if !errors.As(err, &e) || e.Offset != at {
			t.Errorf("ParseRequest(%q) = %v, want error at %d", in, err, at)
		}
	}
	if !strings.Contains(serviceList(), "I2L") {
		t.Error("service list")
	}
}

// serviceList lists the services.
func serviceList() string { return strings.Join(services[:], ",") }
