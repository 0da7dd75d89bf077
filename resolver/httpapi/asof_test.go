package httpapi

import (
	"testing"
	"time"
)

// TestParseAsOf: as-of takes RFC 3339's date-time to the letter of its
// ABNF (§5.6), a leap second included (§5.7), or a full-date alone.
func TestParseAsOf(t *testing.T) {
	for v, want := range map[string]time.Time{
		"2024-05-01T12:00:00Z":           time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01t12:00:00z":           time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01T12:00:00.25+02:00":   time.Date(2024, 5, 1, 10, 0, 0, 250e6, time.UTC),
		"2024-05-01T12:00:00-00:00":      time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2016-12-31T23:59:60Z":           time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC),
		"2016-12-31T23:59:60.5Z":         time.Date(2017, 1, 1, 0, 0, 0, 500e6, time.UTC),
		"2024-05-01":                     time.Date(2024, 5, 2, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond),
		"2024-02-29":                     time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond),
		"0001-01-01T00:00:00Z":           time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		"9999-12-31T23:59:59.999999999Z": time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		got, err := parseAsOf(v)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", v, got, err, want)
		}
	}
	for _, v := range []string{
		"", "2024-5-01", "2024-05-1", "2024-02-30", "2023-02-29", "2024-13-01",
		"2024-05-01T7:00:00Z", "2024-05-01T07:00Z", "2024-05-01T07:00:00", "2024-05-01 07:00:00Z",
		"2024-05-01T07:00:00,5Z", "2024-05-01T07:00:00.Z", "2024-05-01T07:00:00+24:00", "2024-05-01T07:00:00+00:60",
		"2024-05-01T07:00:00+0200", "2024-05-01T24:00:00Z", "2024-05-01T07:60:00Z", "2024-05-01T07:00:61Z",
		"2024-05-01T07:00:00ZZ", "+2024-05-01T07:00:00Z", "12024-05-01T07:00:00Z", "2024-05-01T07:00:00Z ",
	} {
		if got, err := parseAsOf(v); err == nil {
			t.Errorf("%q: %v, want an error", v, got)
		}
	}
}
