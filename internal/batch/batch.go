// Package batch implements the JSON Lines protocol of urikit batch
// (PROTOCOL.md of the conformance corpora): one request object a line on
// input, exactly one response object a line on output, in order, whatever
// the input holds. It is the command's plumbing, internal to the module.
//
// Each op lives in its own file and registers a Handler from init, so
// adding an op never touches this file; the table is never written after
// start-up, so any number of goroutines may call Answer and Run at once.
package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"
)

// Object is one JSON response object.
type Object = map[string]any

// Handler answers one decoded request.
type Handler func(Request) Object

// handlers is filled by the op files' init functions and read only after.
var handlers = map[string]Handler{}

// register makes op available; only init functions call it. It panics on
// a duplicate name: that is a programming error caught by the first test
// run.
func register(op string, h Handler) {
	if _, dup := handlers[op]; dup {
		panic("batch: op registered twice: " + op)
	}
	handlers[op] = h
}

// Ops lists the registered op names, sorted.
func Ops() []string {
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Request is one request line, decoded to its top-level fields.
type Request struct {
	fields map[string]json.RawMessage
}

// String returns the required string field key.
func (r Request) String(key string) (string, error) {
	raw, ok := r.fields[key]
	if !ok {
		return "", fmt.Errorf("missing field %q", key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", fmt.Errorf("field %q must be a string", key)
	}
	return s, nil
}

// OptionalBool returns the boolean field key, false when it is absent.
func (r Request) OptionalBool(key string) (bool, error) {
	raw, ok := r.fields[key]
	if !ok {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return false, fmt.Errorf("field %q must be true or false", key)
	}
	return b, nil
}

// Fail is the response for a request that could not be answered.
func Fail(msg string) Object { return Object{"ok": false, "error": msg} }

// FailAt is Fail with the byte offset of a syntax error.
func FailAt(msg string, offset int) Object {
	return Object{"ok": false, "error": msg, "offset": offset}
}

// Str turns a component into its JSON value: the text when defined, null
// when its delimiter was absent.
func Str(s string, defined bool) any {
	if !defined {
		return nil
	}
	return s
}

// Answer decodes one request line and answers it. It never panics on any
// input: a handler that panics is a bug, reported as an error response so the
// stream goes on.
func Answer(line []byte) (resp Object) {
	defer func() {
		if p := recover(); p != nil {
			resp = Fail(fmt.Sprintf("internal error: %v", p))
		}
	}()
	if !utf8.Valid(line) {
		return Fail("request is not valid UTF-8")
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return Fail("empty request line")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Fail("request is not a JSON object: " + err.Error())
	}
	if fields == nil {
		return Fail("request is not a JSON object")
	}
	req := Request{fields: fields}
	op, err := req.String("op")
	if err != nil {
		return Fail(err.Error())
	}
	h, ok := handlers[op]
	if !ok {
		return Fail("unsupported op")
	}
	return h(req)
}

// Run reads requests from r until its end and writes one response line per
// request line to w, flushing after each so a caller can converse with it.
func Run(r io.Reader, w io.Writer) error {
	in := bufio.NewReaderSize(r, 64*1024)
	out := bufio.NewWriterSize(w, 64*1024)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	var long []byte
	for {
		chunk, err := in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it in full.
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			long = append(long, chunk...)
			line = long
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if encErr := enc.Encode(Answer(line)); encErr != nil {
			return encErr
		}
		// Flush only when no more input is waiting, so a pipe of many lines
		// is written in large blocks while an interactive caller still gets
		// each answer at once.
		if in.Buffered() == 0 {
			if ferr := out.Flush(); ferr != nil {
				return ferr
			}
		}
		long = long[:0]
		if cap(long) > 1<<20 {
			long = nil // do not keep a huge buffer for the rest of the run
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Flush()
			return err
		}
	}
	return out.Flush()
}
