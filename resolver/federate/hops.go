package federate

import (
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/urn"
)

// The hop count travels in the URN's r-component as one "&"-separated part
// "hops=N". RFC 8141 §2.3.1 reserves the r-component for passing
// parameters to a resolver and defines no syntax for it yet; the project
// reads it as the 2012 rfc2141bis draft's directive list (keywd=value
// joined with "&", the form that also carries s=), but rewrites only the
// parts that are its own, so an r-component of any other form survives a
// hop unchanged apart from the added part. Equivalence ignores the
// r-component (RFC 8141 §3.1): the name stays the same name.

const (
	hopsPrefix = "hops="
	// maxHopsDigits bounds the value: a hop count is small, and nine
	// digits always fit an int.
	maxHopsDigits = 9
	// MaxHops is the largest hop count WithHops writes and Hops reads.
	MaxHops = 999_999_999
)

// DefaultHopLimit is the hop count past which a resolver answers 508 Loop
// Detected (RFC 5842 §7.2) instead of handing a request on again.
const DefaultHopLimit = 8

// Hops returns the hop count in u's r-component ("?+hops=N") and whether
// it has one. A "hops=" part whose value is not 1 to 9 decimal digits, or a
// second "hops=" part, is a KindInvalid error about field "urn" with the
// byte offset in u.String() where the bad part starts.
func Hops(u urn.URN) (n int, ok bool, err error) {
	r, has := u.RComponent()
	if !has {
		return 0, false, nil
	}
	base := len(u.AssignedName()) + 2 // after "?+"
	for off, part := range rParts(r) {
		if !strings.HasPrefix(part, hopsPrefix) {
			continue
		}
		at := base + off
		if ok {
			return 0, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: at, Message: "the r-component gives hops twice"}
		}
		v := part[len(hopsPrefix):]
		if v == "" || len(v) > maxHopsDigits || strings.Trim(v, "0123456789") != "" {
			return 0, false, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: at + len(hopsPrefix),
				Message: "the hop count (hops=) is 1 to 9 decimal digits"}
		}
		n, _ = strconv.Atoi(v)
		ok = true
	}
	return n, ok, nil
}

// rParts yields the "&"-separated parts of an r-component with the byte
// offset of each within it.
func rParts(r string) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		off := 0
		for {
			i := strings.IndexByte(r[off:], '&')
			if i < 0 {
				yield(off, r[off:])
				return
			}
			if !yield(off, r[off:off+i]) {
				return
			}
			off += i + 1
		}
	}
}

// WithHops returns u with its hop count set to n: the first "hops=" part
// of the r-component takes the new value in place and any later ones go,
// or "hops=N" is added as the last part (starting an r-component when u
// has none, before any q-component). Every other part, the q-component and
// the f-component stay as they were, byte for byte.
func WithHops(u urn.URN, n int) (urn.URN, error) {
	if !u.IsValid() {
		return urn.URN{}, &resolver.Error{Kind: resolver.KindInvalid, Field: "urn", Offset: -1, Message: "not a URN"}
	}
	if n < 0 || n > MaxHops {
		return urn.URN{}, &resolver.Error{Kind: resolver.KindInvalid, Field: "hops", Offset: -1, Message: "a hop count is 0 to " + strconv.Itoa(MaxHops)}
	}
	return urn.Parse(string(appendWithHops(nil, u, n, true)))
}

// appendWithHops appends u with its hop count set to n (see WithHops),
// with its f-component only when withF is set.
func appendWithHops(b []byte, u urn.URN, n int, withF bool) []byte {
	b = append(b, u.AssignedName()...)
	b = append(b, "?+"...)
	if r, has := u.RComponent(); has {
		done, sep := false, false
		for _, part := range rParts(r) {
			isHops := strings.HasPrefix(part, hopsPrefix)
			if isHops && done {
				continue // a second hops= part goes, with its "&"
			}
			if sep {
				b = append(b, '&')
			}
			sep = true
			if isHops {
				b = appendHops(b, n)
				done = true
				continue
			}
			b = append(b, part...)
		}
		if !done {
			b = appendHops(append(b, '&'), n)
		}
	} else {
		b = appendHops(b, n)
	}
	if q, has := u.QComponent(); has {
		b = append(append(b, "?="...), q...)
	}
	if f, has := u.FComponent(); has && withF {
		b = append(append(b, '#'), f...)
	}
	return b
}

func appendHops(b []byte, n int) []byte {
	return strconv.AppendInt(append(b, hopsPrefix...), int64(n), 10)
}
