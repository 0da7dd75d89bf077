// Package strictjson checks a JSON value against the Go type it is to be
// decoded into, where encoding/json is lenient or vague: a member name
// must be a field's name exactly (encoding/json also takes "Locations"
// or "URL" for "locations" and "url", so a misspelt body would be
// accepted), and an error names the member at fault by its path
// ("locations[1].url", "aliases[2]") and says in plain words what is
// wrong, where encoding/json names Go types ("Go struct field
// jsonRecord.redirect of type int") or drops the array index.
//
// Check only checks; decode with encoding/json afterwards. It accepts
// what encoding/json accepts but for the member names: null anywhere, any
// value where the type is an interface or a json.Unmarshaler (such as
// json.RawMessage). It does not look inside the value of a field with the
// ",string" option, nor decode base64 for a []byte: there encoding/json's
// own error is the one a caller gets.
//
// Where encoding/json is lenient about the JSON text itself, Check and the
// other functions here are not: a member name given twice in one object,
// at any depth (encoding/json keeps the last; RFC 8259 §4 leaves the
// outcome to the reader, so readers disagree; I-JSON, RFC 7493 §2.3,
// forbids it), and bytes that are not UTF-8 (encoding/json replaces them
// with U+FFFD inside strings, so that a check of the decoded text cannot
// see them; RFC 8259 §8.1 says JSON text is UTF-8).
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Error is a JSON value that does not fit the type it is decoded into.
type Error struct {
	// Path is the member at fault, as a client would write it:
	// "locations[1].url", "aliases[2]", "redirect"; "" is the value as a
	// whole.
	Path string
	// Unknown tells that the member at Path is not one the type has.
	// Suggest is then the member whose name differs from it only in case,
	// if there is one.
	Unknown bool
	Suggest string
	// Duplicate tells that the member at Path is the second one of that
	// name in its object; Offset is then the byte offset of its name (its
	// opening quote) in the data checked.
	Duplicate bool
	Offset    int
	// Want says what the value must be ("a string", "an integer", or
	// what the field's want tag says); Got what it is ("an object", "the
	// number 303.5", `the string "303"`).
	Want, Got string

	// parent and name are Path cut in two, for an Unknown or Duplicate
	// member: the path of its object, and its name as written.
	parent, name string
}

func (e *Error) Error() string { return e.Describe("the value") }

// Describe says what is wrong; whole names the value as a whole ("the
// body", "the line").
func (e *Error) Describe(whole string) string {
	if e.Duplicate {
		msg := "member " + strconv.Quote(e.name)
		if e.parent != "" {
			msg += " in " + e.parent
		}
		// Readers of such an object disagree on its value: encoding/json
		// keeps the last, others the first or refuse it.
		return msg + " is given twice: the names in an object must be unique (RFC 8259 §4, RFC 7493 §2.3)"
	}
	if e.Unknown {
		msg := "unknown member " + strconv.Quote(e.name)
		if e.parent != "" {
			msg += " in " + e.parent
		}
		if e.Suggest != "" {
			msg += " (member names are case-sensitive: " + strconv.Quote(e.Suggest) + ")"
		}
		return msg
	}
	subject := e.Path
	if subject == "" {
		subject = whole
	}
	return subject + " must be " + e.Want + ", not " + e.Got
}

// Check reports the first place where the first JSON value of data does
// not fit the type v points to, as an *Error; when it fits, the first
// member name given twice (Unique). A syntax error is returned as
// encoding/json's Decoder reports it (*json.SyntaxError, or
// io.ErrUnexpectedEOF for a value cut short). Check reads no further than
// the first value.
func Check(data []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	w := newWalker(data)
	if err := w.value(t, "", ""); err != nil {
		return err
	}
	return Unique(data, "")
}

// InvalidUTF8 returns the offset of the first byte of data that is not
// part of a UTF-8 encoded character, or -1 when data is UTF-8. JSON text
// is UTF-8 (RFC 8259 §8.1); encoding/json does not refuse other bytes in a
// string but replaces them with U+FFFD, so they must be looked for before
// decoding.
func InvalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// TooDeep returns the offset of the first "{" or "[" in the JSON text data
// that opens a value nested more than limit deep, the outermost value being
// one deep, or -1 when there is none. What is inside strings does not count.
func TooDeep(data []byte, limit int) int {
	depth, in, esc := 0, false, false
	for i, c := range data {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return i
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return -1
}

type walker struct{ dec *json.Decoder }

func newWalker(data []byte) *walker {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return &walker{dec: dec}
}

// token reads the next token; the end of the input inside a value is
// io.ErrUnexpectedEOF.
func (w *walker) token() (json.Token, error) {
	tok, err := w.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, io.ErrUnexpectedEOF
	}
	return tok, err
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value checks the next value against t; want, when not "", says what it
// must be in place of the type's own description.
func (w *walker) value(t reflect.Type, path, want string) error {
	tok, err := w.token()
	if err != nil {
		return err
	}
	if tok == nil { // null leaves the field as it is, for encoding/json too
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(unmarshalerType) || pt.Implements(unmarshalerType):
		return w.skip(tok)
	case t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType):
		if _, ok := tok.(string); !ok {
			return mismatch(path, want, "a string", tok)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if tok != json.Delim('{') {
			return mismatch(path, want, "an object", tok)
		}
		return w.object(fieldsOf(t), nil, path)
	case reflect.Map:
		if tok != json.Delim('{') {
			return mismatch(path, want, "an object", tok)
		}
		return w.object(nil, t.Elem(), path)
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			if _, ok := tok.(string); ok { // []byte is base64 text
				return nil
			}
		}
		if tok != json.Delim('[') {
			return mismatch(path, want, "an array", tok)
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(t.Elem(), path+"["+strconv.Itoa(i)+"]", ""); err != nil {
				return err
			}
		}
		_, err := w.token() // ]
		return err
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return mismatch(path, want, "a string", tok)
		}
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return mismatch(path, want, "true or false", tok)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			return mismatch(path, want, "an integer", tok)
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			return mismatch(path, want, "an integer", tok)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := tok.(json.Number)
		if !ok {
			return mismatch(path, want, "a whole number", tok)
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			return mismatch(path, want, "a whole number", tok)
		}
	case reflect.Float32, reflect.Float64:
		n, ok := tok.(json.Number)
		if !ok {
			return mismatch(path, want, "a number", tok)
		}
		if _, err := strconv.ParseFloat(string(n), t.Bits()); err != nil {
			return mismatch(path, want, "a number", tok)
		}
	default: // an interface takes anything; other kinds are not JSON's
		return w.skip(tok)
	}
	return nil
}

// object checks the members of an object whose "{" was read: against fs
// for a struct, else each value against elem (a map).
func (w *walker) object(fs *fields, elem reflect.Type, path string) error {
	for w.dec.More() {
		tok, err := w.token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		p := member(path, name)
		t, want := elem, ""
		if fs != nil {
			f, ok := fs.byName[name]
			if !ok {
				return &Error{Path: p, Unknown: true, Suggest: fs.fold(name), parent: path, name: name}
			}
			t, want = f.typ, f.want
			if f.quoted { // ",string": encoding/json reads the text inside
				tok, err := w.token()
				if err != nil {
					return err
				}
				if err := w.skip(tok); err != nil {
					return err
				}
				continue
			}
		}
		if err := w.value(t, p, want); err != nil {
			return err
		}
	}
	_, err := w.token() // }
	return err
}

// skip reads the rest of the value that tok begins.
func (w *walker) skip(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := w.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// member is the path of the member name of the value at path. A name that
// would make the path ambiguous ("a.b", "", "x[0]") is written quoted, in
// brackets: metadata["dc.title"].
func member(path, name string) string {
	if plainName(name) {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}

func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r == '.' || r == '[' || r == ']' || r == '"' || r == '\\' || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func mismatch(path, want, kind string, tok json.Token) *Error {
	if want == "" {
		want = kind
	}
	return &Error{Path: path, Want: want, Got: describe(tok)}
}

// describe says what a token begins, for a message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	case string:
		if len(v) > 40 {
			i := 40
			for i > 0 && !utf8.RuneStart(v[i]) {
				i--
			}
			v = v[:i] + "…"
		}
		return "the string " + strconv.Quote(v)
	case json.Number:
		return "the number " + string(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(tok)
}

// fields are a struct type's JSON members.
type fields struct {
	byName map[string]field
}

type field struct {
	typ    reflect.Type
	want   string // the field's want tag: what its value must be, for messages
	quoted bool   // the ",string" option
}

// fold returns the member whose name differs from name only in case.
func (fs *fields) fold(name string) string {
	for n := range fs.byName {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

var cache sync.Map // reflect.Type → *fields

func fieldsOf(t reflect.Type) *fields {
	if fs, ok := cache.Load(t); ok {
		return fs.(*fields)
	}
	fs := &fields{byName: map[string]field{}}
	collect(t, fs.byName, 0)
	cache.Store(t, fs)
	return fs
}

// collect adds t's JSON members to m, as encoding/json names them: the
// json tag's name, else the Go field's name; the members of an embedded
// struct without a name of its own are promoted, and a member of the
// outer struct wins over one of an embedded struct.
func collect(t reflect.Type, m map[string]field, depth int) {
	if depth > 8 {
		return
	}
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		m[name] = field{typ: sf.Type, want: sf.Tag.Get("want"), quoted: hasOpt(opts, "string")}
	}
	for _, et := range embedded {
		inner := map[string]field{}
		collect(et, inner, depth+1)
		for n, f := range inner {
			if _, ok := m[n]; !ok {
				m[n] = f
			}
		}
	}
}

func hasOpt(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}
