package postgres

import (
	"context"
	"encoding/binary"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/urikit/urikit/resolver"
)

// copyRows builds the data of a COPY … FROM STDIN (FORMAT binary): the
// rows of an import batch, written straight into a buffer. pgx's own
// CopyFrom takes each value as an interface and looks up its encoder
// value by value, which cost more than everything else the import does
// in this process; the few column types the bulk tables use are simple
// to write directly (the format: "COPY", File Formats, Binary Format, in
// PostgreSQL's manual; each type's layout is its send/recv function's).
type copyRows struct {
	b []byte
}

// copyHeader is the signature, the flags field (no OIDs) and the length
// of the header extension (none).
const copyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// row starts a row of n fields.
func (c *copyRows) row(n int) { c.b = binary.BigEndian.AppendUint16(c.b, uint16(n)) }

// null is a NULL field.
func (c *copyRows) null() { c.b = binary.BigEndian.AppendUint32(c.b, 0xffffffff) }

func (c *copyRows) int8(v int64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 8)
	c.b = binary.BigEndian.AppendUint64(c.b, uint64(v))
}

func (c *copyRows) int4(v int32) {
	c.b = binary.BigEndian.AppendUint32(c.b, 4)
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(v))
}

// text is a text value: its bytes, which the server checks are valid in
// the client encoding (UTF8, which pgx sets) and converts.
func (c *copyRows) text(s string) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(s)))
	c.b = append(c.b, s...)
}

func (c *copyRows) bytea(v []byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(v)))
	c.b = append(c.b, v...)
}

// textOID is the type of a text[] column's elements, which array_recv
// checks (a column's collation is not part of its type).
const textOID = 25

// textArray writes a one-dimensional text[] with lower bound 1 (an empty
// one has no dimensions), without NULLs.
func (c *copyRows) textArray(ss []string) {
	c.arrayHead(len(ss), func() (n int) {
		for _, s := range ss {
			n += len(s)
		}
		return n
	}())
	for _, s := range ss {
		c.text(s)
	}
}

// locArray writes one field of every location as a text[], as textArray.
func (c *copyRows) locArray(ls []resolver.Location, field func(*resolver.Location) string) {
	n := 0
	for i := range ls {
		n += len(field(&ls[i]))
	}
	c.arrayHead(len(ls), n)
	for i := range ls {
		c.text(field(&ls[i]))
	}
}

// arrayHead writes an array's length and header: n text elements of
// size bytes in all follow.
func (c *copyRows) arrayHead(n, size int) {
	size += 12 + 4*n
	dims := uint32(0)
	if n > 0 {
		size += 8
		dims = 1
	}
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(size))
	c.b = binary.BigEndian.AppendUint32(c.b, dims)
	c.b = binary.BigEndian.AppendUint32(c.b, 0) // no NULLs
	c.b = binary.BigEndian.AppendUint32(c.b, textOID)
	if n > 0 {
		c.b = binary.BigEndian.AppendUint32(c.b, uint32(n))
		c.b = binary.BigEndian.AppendUint32(c.b, 1) // lower bound
	}
}

// pgEpoch is where timestamptz counts from: 2000-01-01 00:00:00 UTC, in
// microseconds after the Unix epoch.
const pgEpoch = 946684800 * 1000000

// timestamptz writes t as microseconds since 2000-01-01 UTC, dropping
// what is below a microsecond as the server would (every time the
// resolver stores is whole microseconds already).
func (c *copyRows) timestamptz(t time.Time) {
	us := t.Unix()*1000000 + int64(t.Nanosecond())/1000 - pgEpoch
	c.int8(us)
}

// copyChunk is how much encoded data a copyReader gathers before it
// hands it on: what pgconn sends in one message.
const copyChunk = 64 << 10

// copyReader is the data of one COPY, encoded row by row as pgconn reads
// it: the server parses and stores the rows of one chunk while the next
// is being encoded (pgconn reads in a goroutine of its own), and the
// batch is never held encoded whole.
type copyReader struct {
	mu     sync.Mutex
	c      copyRows
	off    int                  // of c.b, what Read has handed out
	next   int                  // the next row to encode
	n      int                  // rows
	encode func(int, *copyRows) // writes row i
	state  int                  // 0: header to write, 1: rows, 2: trailer written, 3: closed
}

func (r *copyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.off == len(r.c.b) {
		r.c.b, r.off = r.c.b[:0], 0
		if r.state == 0 {
			r.c.b = append(r.c.b, copyHeader...)
			r.state = 1
		}
		for r.state == 1 && len(r.c.b) < min(len(p), copyChunk) {
			if r.next == r.n {
				r.c.b = binary.BigEndian.AppendUint16(r.c.b, 0xffff) // the end of the data
				r.state = 2
				break
			}
			r.encode(r.next, &r.c)
			r.next++
		}
		if r.off == len(r.c.b) {
			return 0, io.EOF
		}
	}
	n := copy(p, r.c.b[r.off:])
	r.off += n
	return n, nil
}

// close makes Read end the data, and returns once no Read is under way:
// encode is not called after it.
func (r *copyReader) close() {
	r.mu.Lock()
	r.state, r.off, r.c.b = 3, 0, nil
	r.mu.Unlock()
}

// copyIn runs COPY table (cols) FROM STDIN (FORMAT binary) with n rows,
// encode writing row i. encode runs in another goroutine while copyIn
// waits, and never after copyIn returns.
func copyIn(ctx context.Context, tx pgx.Tx, table string, cols []string, n int, encode func(i int, c *copyRows)) error {
	sql := "COPY " + pgx.Identifier{table}.Sanitize() + " (" + strings.Join(cols, ", ") + ") FROM STDIN (FORMAT binary)"
	r := &copyReader{n: n, encode: encode, c: copyRows{b: make([]byte, 0, copyChunk+4096)}}
	defer r.close() // pgconn may return before its reading goroutine ends (a broken connection)
	_, err := tx.Conn().PgConn().CopyFrom(ctx, r, sql)
	return err
}
