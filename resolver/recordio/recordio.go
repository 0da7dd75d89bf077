// Package recordio reads and writes the resolver's records in the two
// exchange formats of urikit import and urikit export:
//
//   - JSON Lines: one record a line, the body of PUT /api/v1/names/{urn}
//     plus "urn" (and, for a withdrawn record, "status", "reason" and
//     "successor", so that an export imports back whole);
//   - CSV with the header urn,url[,type,label]: one row per location, the
//     rows of one record consecutive and in the order of its locations
//     (rows whose URNs are equivalent are one record's).
//
// Readers stream: memory does not grow with the input. A bad row is
// reported with its line number and the reader goes on with the next record.
package recordio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/internal/strictjson"
	"github.com/urikit/urikit/urn"
)

// Format is an exchange format.
type Format uint8

const (
	JSONLines Format = iota + 1
	CSV
)

func (f Format) String() string {
	switch f {
	case JSONLines:
		return "jsonl"
	case CSV:
		return "csv"
	}
	return "unknown"
}

// ParseFormat reads a format name: "jsonl" (or "json", "ndjson") or "csv".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "jsonl", "json", "ndjson":
		return JSONLines, nil
	case "csv":
		return CSV, nil
	}
	return 0, fmt.Errorf("unknown format %q (jsonl or csv)", s)
}

// FormatOf guesses a file's format from its name: ".csv" is CSV, anything
// else JSON Lines.
func FormatOf(path string) Format {
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return CSV
	}
	return JSONLines
}

// Item is one record read from an exchange file.
type Item struct {
	resolver.NamedInput
	Status    resolver.Status // Active, or Withdrawn for an exported withdrawn record
	Reason    string
	Successor string
	// Reserved are aliases the record dropped (retired keys' spellings,
	// as exported): names it keeps for ever, which resolve to nothing
	// and may be no other record's (names are never reused). JSON Lines
	// only.
	Reserved []string
	Line     int // the line the record starts on (1-based)
	EndLine  int // the last line of the record
}

// RowError is a record that could not be read; the reader skips it.
type RowError struct {
	Line int
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// UnreadableError is a line from which the input cannot be read on: a
// CSV quote left open made the rows after it one field, which cannot be
// told apart. It is final: Next returns it again. Every record before
// Line has been returned, but for one whose rows may go on at Line: Err
// then says that it is not imported either.
type UnreadableError struct {
	Line int
	Err  error
}

func (e *UnreadableError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *UnreadableError) Unwrap() error { return e.Err }

// jsonRecord is one line of JSON Lines.
type jsonRecord struct {
	URN       string              `json:"urn"`
	Aliases   []string            `json:"aliases,omitempty"`
	Locations []resolver.Location `json:"locations"`
	Metadata  json.RawMessage     `json:"metadata,omitempty"`
	Redirect  int                 `json:"redirect,omitempty" want:"301, 302, 303 or 307"`
	Status    resolver.Status     `json:"status,omitempty"`
	Reason    string              `json:"reason,omitempty"`
	Successor string              `json:"successor,omitempty"`
	Reserved  []string            `json:"reserved,omitempty"`
}

// MaxLine bounds one line of input (and so one record of JSON Lines).
const MaxLine = 4 << 20

// Reader reads records one at a time.
type Reader struct {
	format Format
	// JSON Lines
	lines *bufio.Reader
	line  int
	// CSV
	csv     *csv.Reader
	cols    map[string]int
	ncols   int
	pending []string // the first row of the next record
	pendAt  int
	pendEnd int   // the last line of the pending row
	rowEnd  int   // the last line of the row readRow read last
	pendErr error // why that row is bad, when it is
	started bool
	eof     bool
	final   error // the error that ended the input, returned from then on
}

// NewReader reads format from r.
func NewReader(r io.Reader, format Format) *Reader {
	rd := &Reader{format: format}
	if format == CSV {
		rd.csv = csv.NewReader(r)
		rd.csv.FieldsPerRecord = -1
		rd.csv.ReuseRecord = false
	} else {
		rd.lines = bufio.NewReaderSize(r, 64<<10)
	}
	return rd
}

// Next returns the next record. At the end it returns io.EOF. A bad record
// gives a *RowError, after which Next goes on with the following one; any
// other error is final: reading the input failed, a CSV header is not
// urn,url[,type,label] (no row can be read without the columns), or a CSV
// quote left open swallowed the rows after it, which then cannot be told
// apart (an *UnreadableError).
func (r *Reader) Next() (Item, error) {
	if r.format == CSV {
		return r.nextCSV()
	}
	return r.nextJSON()
}

func (r *Reader) nextJSON() (Item, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Item{}, err
		}
		if r.line == 1 {
			// A byte-order mark, as Windows editors write one, starts
			// the file, not the record.
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		lead := len(line) - len(bytes.TrimLeftFunc(line, unicode.IsSpace))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// JSON text is UTF-8 (RFC 8259 §8.1): encoding/json would replace
		// other bytes in a string with U+FFFD, unseen.
		if i := strictjson.InvalidUTF8(line); i >= 0 {
			return Item{}, &RowError{r.line, fmt.Errorf("not UTF-8: byte 0x%02X (at byte %d) does not belong to a UTF-8 encoded character (JSON text is UTF-8, RFC 8259 §8.1)", line[i], lead+i)}
		}
		var j jsonRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return Item{}, &RowError{r.line, lineError(line, lead, err)}
		}
		// More does not see a closing "]" or "}" (it reports whether an
		// array or object goes on): the value must end the line.
		if dec.InputOffset() != int64(len(line)) {
			return Item{}, &RowError{r.line, errors.New("more than one JSON value on the line")}
		}
		// encoding/json keeps the last of a member given twice, where
		// other readers keep the first (RFC 8259 §4).
		var ce *strictjson.Error
		if err := strictjson.Unique(line, ""); errors.As(err, &ce) {
			return Item{}, &RowError{r.line, fmt.Errorf("not a record: %s (at byte %d)", ce.Describe("the line"), lead+ce.Offset)}
		}
		if j.URN == "" {
			return Item{}, &RowError{r.line, errors.New(`no "urn"`)}
		}
		it := Item{Line: r.line, EndLine: r.line, Status: resolver.Active, Reason: j.Reason, Successor: j.Successor}
		switch j.Status {
		case "", resolver.Active:
		case resolver.Withdrawn:
			it.Status = resolver.Withdrawn
		default:
			return Item{}, &RowError{r.line, fmt.Errorf("status %q is neither active nor withdrawn", j.Status)}
		}
		it.URN = j.URN
		it.Aliases, it.Locations, it.Metadata, it.Redirect = j.Aliases, j.Locations, j.Metadata, j.Redirect
		if err := checkReserved(j); err != nil {
			return Item{}, &RowError{r.line, err}
		}
		it.Reserved = j.Reserved
		return it, nil
	}
}

// checkReserved checks a record's "reserved" names: URNs, each once, and
// none of them the record's name or one of its aliases (a reserved name is
// one the record no longer lists).
func checkReserved(j jsonRecord) error {
	seen := map[string]string{}
	for _, n := range append([]string{j.URN}, j.Aliases...) {
		if u, err := urn.Parse(n); err == nil {
			seen[u.Key()] = n
		}
	}
	for i, n := range j.Reserved {
		u, err := urn.Parse(n)
		if err != nil {
			return fmt.Errorf("reserved[%d] %q is not a URN: %v", i, n, err)
		}
		if was, ok := seen[u.Key()]; ok {
			return fmt.Errorf("reserved[%d] %q is the same name as %q, which the record lists", i, n, was)
		}
		seen[u.Key()] = n
	}
	return nil
}

// lineError says what is wrong with a line of JSON Lines (line, with lead
// bytes of white space cut from its start) that encoding/json could not
// decode into a record, and where, without encoding/json's words for Go
// types ("Go struct field jsonRecord.redirect of type int").
func lineError(line []byte, lead int, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		at := int(se.Offset) - 1 // Offset counts the offending byte
		if w, start := bareWord(line, at); w != "" {
			// encoding/json reads a bare word by its first letter
			// ("invalid character 'o' in literal null" for nope).
			return fmt.Errorf("not JSON: the bare word %s (at byte %d): a string is written in double quotes", w, lead+start)
		}
		return fmt.Errorf("not JSON: %s (at byte %d)", se.Error(), lead+at)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New(`not JSON: the line ends before the record does (a closing "}", "]" or '"' is missing)`)
	}
	// A member of the wrong type, or an unknown one: strictjson names it
	// by its path, with the array index.
	var ce *strictjson.Error
	if errors.As(strictjson.Check(line, &jsonRecord{}), &ce) {
		return errors.New("not a record: " + ce.Describe("the line"))
	}
	return fmt.Errorf("not a record: %v", err)
}

// bareWord returns the word of letters and digits that line[at] is part
// of, and where it starts, when it starts with a letter, is not one of
// JSON's literals true, false and null, and is not inside a string (where
// a letter can be at fault too: "\q").
func bareWord(line []byte, at int) (string, int) {
	if at < 0 || at >= len(line) || !isWordByte(line[at]) || inString(line[:at]) {
		return "", 0
	}
	start, end := at, at
	for start > 0 && isWordByte(line[start-1]) {
		start--
	}
	for end < len(line) && isWordByte(line[end]) {
		end++
	}
	w := string(line[start:end])
	if c := w[0] | 0x20; c < 'a' || c > 'z' || w == "true" || w == "false" || w == "null" {
		return "", 0
	}
	if len(w) > 40 {
		w = w[:40] + "…"
	}
	return w, start
}

// inString reports whether JSON text that begins a value ends inside a
// string.
func inString(b []byte) bool {
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		}
	}
	return in
}

func isWordByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_'
}

// readLine returns the next line without its end; a line over MaxLine is
// a RowError, read to its end and skipped.
func (r *Reader) readLine() ([]byte, error) {
	r.line++
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.lines.ReadSlice('\n')
		if !tooLong && len(buf)+len(chunk) > MaxLine {
			tooLong, buf = true, nil
		}
		if !tooLong {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		switch {
		case tooLong:
			return nil, &RowError{r.line, fmt.Errorf("line longer than %d bytes", MaxLine)}
		case err != nil && len(buf) == 0:
			return nil, io.EOF
		}
		return buf, nil
	}
}

// readRow reads one CSV row. A row that is not CSV is a *RowError, given
// with the fields read before the fault: encoding/csv returns only whole
// fields, so when there is one, the row's URN is known, and so is the
// record it belongs to. An *UnreadableError comes with those fields too
// (they tell whether the record before it is whole).
func (r *Reader) readRow() ([]string, int, error) {
	row, err := r.csv.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if errors.Is(pe.Err, csv.ErrQuote) && pe.Line > pe.StartLine {
				// A quote never closed: encoding/csv read every line after
				// it, to the end of the input, as one field. Those rows
				// cannot be told apart, so none is skipped quietly: the
				// import stops here (and resumes once the quote is fixed).
				return row, pe.StartLine, &UnreadableError{pe.StartLine, fmt.Errorf("a quoted field opened here is not closed properly before line %d: "+
					"the rows from line %d on cannot be read (RFC 4180 §2: a quote in a field is doubled)", pe.Line, pe.StartLine)}
			}
			return row, pe.StartLine, &RowError{pe.StartLine, fmt.Errorf("not CSV: %v", pe.Err)}
		}
		return nil, 0, err
	}
	line, _ := r.csv.FieldPos(0)
	// The row ends where its last field does: a quoted field may hold line
	// breaks, and a record's EndLine must cover them all (an import
	// resumes after it, and checks the lines up to it unchanged).
	r.rowEnd = line
	if n := len(row); n > 0 {
		start, _ := r.csv.FieldPos(n - 1)
		r.rowEnd = start + strings.Count(row[n-1], "\n") // a quoted CRLF reads as "\n"
	}
	if r.cols != nil {
		// A quote closed only on a later line reads the lines between as
		// one field. A URN, a URL or a media type never holds a line
		// break, so there one means rows were swallowed: stop, as above.
		// A label may hold one, but not a line that starts like a row.
		for _, c := range []string{"urn", "url", "type", "label"} {
			i, ok := r.cols[c]
			if !ok || i < 0 || i >= len(row) || !strings.ContainsAny(row[i], "\r\n") {
				continue
			}
			if c == "label" && !swallowsRow(row[i]) {
				continue
			}
			start, _ := r.csv.FieldPos(i)
			end := start + strings.Count(row[i], "\n") // encoding/csv gives a quoted CRLF as "\n"
			if c == "urn" {
				row = nil // not a name, so no telling which record the row is of
			}
			return row, line, &UnreadableError{line, fmt.Errorf("its %s runs on to line %d: a quote opened on line %d closes only there, "+
				"and the rows between were read as part of it (RFC 4180 §2: a quote in a field is doubled)", c, end, start)}
		}
	}
	return row, line, nil
}

func (r *Reader) nextCSV() (Item, error) {
	if r.final != nil {
		return Item{}, r.final
	}
	if !r.started {
		r.started = true
		head, line, err := r.readRow()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Item{}, io.EOF
			}
			return Item{}, err
		}
		if err := r.header(head); err != nil {
			// Without the columns no row can be read: stop here, rather
			// than report every row after it as bad.
			r.eof = true
			return Item{}, fmt.Errorf("line %d: %w; no row was read", line, err)
		}
	}
	// Collect the consecutive rows of one URN.
	var it Item
	var bad error
	take := func(row []string, line, end int, rowErr error) {
		if it.URN == "" {
			it = Item{Line: line, Status: resolver.Active}
			it.URN = field(row, r.cols["urn"])
		}
		it.EndLine = max(line, end)
		if rowErr != nil && bad == nil {
			bad = rowErr
		}
		loc := resolver.Location{URL: field(row, r.cols["url"]), Type: field(row, r.cols["type"]), Label: field(row, r.cols["label"])}
		if len(row) != r.ncols && bad == nil {
			bad = &RowError{line, fmt.Errorf("%d fields, the header has %d", len(row), r.ncols)}
		}
		if loc.URL == "" && bad == nil {
			bad = &RowError{line, errors.New("empty url")}
		}
		it.Locations = append(it.Locations, loc)
	}
	if r.pending != nil {
		row, line, end, rowErr := r.pending, r.pendAt, r.pendEnd, r.pendErr
		r.pending, r.pendErr = nil, nil
		if field(row, r.cols["urn"]) == "" {
			if rowErr != nil {
				return Item{}, rowErr
			}
			return Item{}, &RowError{line, errors.New("empty urn")}
		}
		take(row, line, end, rowErr)
	}
	for !r.eof {
		row, line, err := r.readRow()
		if errors.Is(err, io.EOF) {
			r.eof = true
			break
		}
		var rowErr error
		var re *RowError
		if errors.As(err, &re) {
			rowErr = err
			if len(row) == 0 {
				// Not even the URN could be read: the row is taken to
				// belong to the record under way, if any.
				if it.URN == "" {
					return Item{}, err
				}
				if bad == nil {
					bad = err
				}
				continue
			}
		} else if err != nil {
			if it.URN != "" && endsRecord(row, r.cols["urn"], it.URN, err) {
				r.final = err
				break // the record under way is whole: returned first
			}
			if it.URN != "" {
				// Its rows may go on where the input can no longer be
				// read: written now, it could be written half.
				err = notEither(err, it)
			}
			r.final = err
			return Item{}, err
		}
		if field(row, r.cols["urn"]) == "" && it.URN == "" {
			if rowErr != nil {
				return Item{}, rowErr
			}
			return Item{}, &RowError{line, errors.New("empty urn")}
		}
		if it.URN != "" && !sameName(field(row, r.cols["urn"]), it.URN) {
			r.pending, r.pendAt, r.pendEnd, r.pendErr = row, line, r.rowEnd, rowErr
			break
		}
		take(row, line, r.rowEnd, rowErr)
	}
	if it.URN == "" {
		return Item{}, io.EOF
	}
	if bad != nil {
		var re *RowError
		errors.As(bad, &re)
		return Item{}, &RowError{re.Line, fmt.Errorf("record %s (lines %d-%d) skipped: %v", it.URN, it.Line, it.EndLine, re.Err)}
	}
	return it, nil
}

// notEither adds to a final error that the record under way, it, is not
// returned either; an *UnreadableError stays one, with its line.
func notEither(err error, it Item) error {
	const format = "%w; the record %s (from line %d) is not imported either"
	if ue, ok := err.(*UnreadableError); ok {
		return &UnreadableError{ue.Line, fmt.Errorf(format, ue.Err, it.URN, it.Line)}
	}
	return fmt.Errorf(format, err, it.URN, it.Line)
}

// endsRecord reports whether a row that cannot be read (err) is of
// another record than name's, so that the record under way is whole: the
// fields encoding/csv read before the fault name another record. The
// rows of one record are consecutive, so none of name's comes after.
func endsRecord(row []string, urnCol int, name string, err error) bool {
	var ue *UnreadableError
	if !errors.As(err, &ue) || urnCol >= len(row) {
		return false
	}
	other := field(row, urnCol)
	return other != "" && !sameName(other, name)
}

// swallowsRow reports whether a label's text holds a line that starts as
// a row of this format does, with a URN ("urn:", any case): a quote left
// open on one row that closed in a later row's label.
func swallowsRow(label string) bool {
	for _, l := range strings.Split(label, "\n")[1:] {
		if len(l) >= 4 && strings.EqualFold(l[:4], "urn:") {
			return true
		}
	}
	return false
}

// sameName reports whether two rows' URNs name one record: spelled alike,
// or equivalent as the Service matches names (urn.URN.Key: RFC 8141 §3
// and the namespace's rules). Rows of one record read as two records would
// be two PUTs, the second replacing the first and dropping its locations.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	ua, err := urn.Parse(a)
	if err != nil {
		return false
	}
	ub, err := urn.Parse(b)
	return err == nil && ua.Key() == ub.Key()
}

func field(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

func (r *Reader) header(h []string) error {
	want := []string{"urn", "url", "type", "label"}
	if len(h) == 1 {
		for _, sep := range []string{";", "\t", "|"} {
			if strings.Contains(h[0], sep) {
				return fmt.Errorf("the header must be urn,url[,type,label], not %s: the fields are separated by %q, "+
					"and CSV's separator is the comma (RFC 4180 §2)", strings.Join(h, ","), sep)
			}
		}
	}
	if len(h) < 2 || len(h) > 4 {
		return fmt.Errorf("the header must be urn,url[,type,label], not %s", strings.Join(h, ","))
	}
	r.cols, r.ncols = map[string]int{"type": -1, "label": -1}, len(h)
	for i, name := range h {
		name = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")))
		if name != want[i] {
			return fmt.Errorf("the header must be urn,url[,type,label], not %s", strings.Join(h, ","))
		}
		r.cols[name] = i
	}
	return nil
}

// Writer writes records in one format.
type Writer struct {
	format Format
	w      *bufio.Writer
	csv    *csv.Writer
	wrote  bool
}

// NewWriter writes format to w. Call Flush at the end.
func NewWriter(w io.Writer, format Format) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	wr := &Writer{format: format, w: bw}
	if format == CSV {
		wr.csv = csv.NewWriter(bw)
	}
	return wr
}

// Write writes one record. CSV has no place for aliases, metadata, the
// redirect status or withdrawal: Write reports whether it could write r
// whole (a withdrawn record is not written to CSV at all).
func (w *Writer) Write(r resolver.Record) (whole bool, err error) {
	return w.WriteReserved(r, nil)
}

// WriteReserved writes one record with the aliases it dropped (its retired
// keys' spellings), which JSON Lines holds as "reserved" so that an import
// keeps them reserved. CSV has no place for them either: a record with
// some is not written whole.
func (w *Writer) WriteReserved(r resolver.Record, reserved []string) (whole bool, err error) {
	if w.format == CSV {
		if !w.wrote {
			w.wrote = true
			if err := w.csv.Write([]string{"urn", "url", "type", "label"}); err != nil {
				return false, err
			}
		}
		if r.Status == resolver.Withdrawn {
			return false, nil
		}
		for _, l := range r.Locations {
			if err := w.csv.Write([]string{r.URN, l.URL, l.Type, l.Label}); err != nil {
				return false, err
			}
		}
		whole = len(r.Aliases) == 0 && len(reserved) == 0 && (len(r.Metadata) == 0 || string(r.Metadata) == "{}") &&
			(r.Redirect == 0 || r.Redirect == resolver.DefaultRedirect)
		return whole, w.csv.Error()
	}
	j := jsonRecord{URN: r.URN, Aliases: r.Aliases, Locations: r.Locations, Metadata: r.Metadata, Reserved: reserved}
	if r.Redirect != resolver.DefaultRedirect {
		j.Redirect = r.Redirect
	}
	if len(j.Metadata) == 0 || string(j.Metadata) == "{}" {
		j.Metadata = nil
	}
	if r.Status == resolver.Withdrawn {
		j.Status, j.Reason, j.Successor = resolver.Withdrawn, r.Reason, r.Successor
	}
	b, err := json.Marshal(j)
	if err != nil {
		return false, err
	}
	b = append(b, '\n')
	_, err = w.w.Write(b)
	return true, err
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.csv != nil {
		if !w.wrote {
			w.wrote = true
			if err := w.csv.Write([]string{"urn", "url", "type", "label"}); err != nil {
				return err
			}
		}
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	}
	return w.w.Flush()
}
