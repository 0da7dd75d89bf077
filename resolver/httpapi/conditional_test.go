package httpapi

import (
	"net/http"
	"testing"
	"time"
)

// TestHTTPDate: the three forms of an HTTP-date are read (RFC 9110
// §5.6.7), in GMT only; anything else, a list included, is no date, which
// the conditional date fields then ignore (§13.1.3, §13.1.4).
func TestHTTPDate(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, v := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"} {
		got := httpDate(http.Header{"If-Modified-Since": {v}}, "If-Modified-Since")
		if got == nil || !got.Equal(want) {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
	for _, v := range []string{"", "Sun, 06 Nov 1994 08:49:37 PST", "Sunday, 06-Nov-94 08:49:37 PST", "sun, 06 nov 1994 08:49:37 gmt",
		"Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z", "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 1994 08:60:00 GMT"} {
		if got := httpDate(http.Header{"If-Modified-Since": {v}}, "If-Modified-Since"); got != nil {
			t.Errorf("%q: %v, want no date", v, got)
		}
	}
	// An rfc850-date's two-digit year as §5.6.7 reads it, not as Go's
	// parse does (1970): 2070 is less than 50 years ahead.
	y2070 := time.Date(2070, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := httpDate(http.Header{"If-Modified-Since": {y2070.Format(rfc850Date)}}, "If-Modified-Since"); got == nil || !got.Equal(y2070) {
		t.Errorf("%s: %v, want %v", y2070.Format(rfc850Date), got, y2070)
	}
	two := http.Header{"If-Modified-Since": {"Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"}}
	if got := httpDate(two, "If-Modified-Since"); got != nil {
		t.Errorf("two field lines: %v, want no date", got)
	}
	// A leap second (second 60, §5.6.7) reads as the next minute's first.
	for _, v := range []string{"Sat, 31 Dec 2016 23:59:60 GMT", "Saturday, 31-Dec-16 23:59:60 GMT", "Sat Dec 31 23:59:60 2016"} {
		got := httpDate(http.Header{"If-Unmodified-Since": {v}}, "If-Unmodified-Since")
		if want := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC); got == nil || !got.Equal(want) {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

// TestFullYear: an rfc850-date's two-digit year is the one at most 50
// years ahead of today, else the most recent past one (RFC 9110 §5.6.7).
func TestFullYear(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for yy, want := range map[int]int{26: 2026, 0: 2000, 75: 2075, 76: 1976, 77: 1977, 99: 1999, 69: 2069} {
		parsed := time.Date(1900+yy, 6, 1, 0, 0, 0, 0, time.UTC)
		if yy < 69 {
			parsed = parsed.AddDate(100, 0, 0) // as Go's parse reads it
		}
		if got := fullYear(parsed, now).Year(); got != want {
			t.Errorf("%02d: %d, want %d", yy, got, want)
		}
	}
	// In a century's second half, a small year is the next century's.
	late := time.Date(2080, 1, 1, 0, 0, 0, 0, time.UTC)
	for yy, want := range map[int]int{1: 2101, 29: 2129, 30: 2130, 31: 2031, 80: 2080, 99: 2099} {
		if got := fullYear(time.Date(2000+yy, 1, 1, 0, 0, 0, 0, time.UTC), late).Year(); got != want {
			t.Errorf("in 2080, %02d: %d, want %d", yy, got, want)
		}
	}
	// 50 years to the day is not more than 50 years ahead; a day later is.
	if got := fullYear(time.Date(1976, 3, 1, 0, 0, 0, 0, time.UTC), now).Year(); got != 2076 {
		t.Errorf("exactly 50 years ahead: %d, want 2076", got)
	}
	if got := fullYear(time.Date(1976, 3, 2, 0, 0, 0, 0, time.UTC), now).Year(); got != 1976 {
		t.Errorf("50 years and a day ahead: %d, want 1976", got)
	}
}

// TestLastModifiedNotAfterNow: a modification time ahead of the clock is
// sent as the time of the answer (RFC 9110 §8.8.2.1).
func TestLastModifiedNotAfterNow(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := lastModified(now.Add(time.Hour), now); got != "Sun, 01 Mar 2026 12:00:00 GMT" {
		t.Errorf("ahead: %s", got)
	}
	if got := lastModified(now.Add(-time.Hour), now); got != "Sun, 01 Mar 2026 11:00:00 GMT" {
		t.Errorf("behind: %s", got)
	}
}

// FuzzHTTPDate: whatever a conditional date field holds, httpDate never
// panics; a value it reads is a whole second in UTC, and the IMF-fixdate
// that Last-Modified would send for it reads back as the same instant.
func FuzzHTTPDate(f *testing.F) {
	for _, s := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Mon, 31 Dec 9999 23:59:59 GMT", "Sat, 01 Jan 0000 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:60 GMT", " Sun, 06 Nov 1994 08:49:37 GMT ",
		"Sun, 06 Nov 1994 08:49:37 PST", "Tue, 29 Feb 2023 00:00:00 GMT", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := httpDate(http.Header{"If-Modified-Since": {v}}, "If-Modified-Since")
		if got == nil {
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() != 0 {
			t.Fatalf("%q: %v is not a whole second in UTC", v, got)
		}
		back := httpDate(http.Header{"If-Modified-Since": {got.Format(http.TimeFormat)}}, "If-Modified-Since")
		if back == nil || !back.Equal(*got) {
			t.Fatalf("%q: %v, formatted %q, reads back as %v", v, got, got.Format(http.TimeFormat), back)
		}
	})
}
