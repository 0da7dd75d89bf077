package strictjson

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// Unique reports the first member name given twice in one object, at any
// depth of the first JSON value of data, as an *Error whose Path starts
// with path ("metadata" names the member "metadata.a.b"). Names are
// compared as encoding/json decodes them, escapes undone: "a" and
// "\u0061" are the same name (RFC 8259 §8.3).
//
// Unique scans the bytes once, without decoding (an import calls it on
// every line, after encoding/json has decoded the line): data must be
// JSON text that a decoder or json.Valid has taken. Of other input it
// reports io.ErrUnexpectedEOF when a value is left open, and otherwise
// whatever its scan finds; it never fails on it.
func Unique(data []byte, path string) error {
	var stack []level
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			end := stringEnd(data, i)
			if n := len(stack); n > 0 && stack[n-1].wantName {
				top := &stack[n-1]
				top.wantName = false
				top.name = data[i+1 : max(end-1, i+1)]
				if !top.names.add(unescape(top.name)) {
					parent := pathOf(stack, path)
					name := string(unescape(top.name))
					return &Error{Path: member(parent, name), Duplicate: true, Offset: i, parent: parent, name: name}
				}
			}
			i = end - 1
		case '{', '[':
			stack = append(stack, level{obj: c == '{', wantName: c == '{'})
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			if stack = stack[:len(stack)-1]; len(stack) == 0 {
				return nil // the end of the first value
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].obj {
					stack[n-1].wantName = true
				} else {
					stack[n-1].n++
				}
			}
		default:
			if len(stack) == 0 && !isSpace(c) {
				return nil // the first value is not an object or array
			}
		}
	}
	if len(stack) > 0 {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// level is an object or array open at the point of Unique's scan.
type level struct {
	obj      bool
	wantName bool   // an object's next string is a member name
	name     []byte // an object's last member name, as written
	n        int    // an array's elements before the current one
	names    names  // an object's member names so far
}

// pathOf is the path of the innermost value open in stack, the first
// of which is at path.
func pathOf(stack []level, path string) string {
	for _, l := range stack[:len(stack)-1] {
		if l.obj {
			path = member(path, string(unescape(l.name)))
		} else {
			path += "[" + strconv.Itoa(l.n) + "]"
		}
	}
	return path
}

// unescape returns the member name written as raw (without its quotes) as
// encoding/json decodes it: raw itself when it has no escape.
func unescape(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	if json.Unmarshal(q, &s) != nil {
		return raw
	}
	return []byte(s)
}

// stringEnd returns the offset just past the string that starts at
// data[i], a '"' (len(data) when it is not closed).
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// names are the member names of one object read so far. Most objects have
// a few: those are compared one by one, and a map is made only for more.
type names struct {
	few  [][]byte
	many map[string]struct{}
}

// add adds name, reporting false if it was there already.
func (ns *names) add(name []byte) bool {
	if ns.many != nil {
		if _, ok := ns.many[string(name)]; ok {
			return false
		}
		ns.many[string(name)] = struct{}{}
		return true
	}
	for _, n := range ns.few {
		if bytes.Equal(n, name) {
			return false
		}
	}
	if len(ns.few) < 16 {
		ns.few = append(ns.few, name)
		return true
	}
	ns.many = make(map[string]struct{}, 2*len(ns.few))
	for _, n := range ns.few {
		ns.many[string(n)] = struct{}{}
	}
	ns.many[string(name)] = struct{}{}
	ns.few = nil
	return true
}
