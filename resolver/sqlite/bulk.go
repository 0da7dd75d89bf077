package sqlite

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// The bulk methods of resolver.BulkTx: PutMany writes the plainly new
// records of an import batch with them. Per record, the one-by-one path
// costs a key lookup, a record insert, a location insert, a key insert and
// a history insert, each a separate trip through database/sql and the
// SQLite VM; here each table gets multi-row INSERTs of several rows.
//
// The INSERTs go to the driver's own statements (database/sql's Conn.Raw),
// not through database/sql: there, every statement converts and checks its
// arguments one by one, takes the connection's lock and, with a context
// that can be cancelled, starts a goroutine to interrupt it; that was a
// fifth of an import's time. A cancelled context is checked between
// statements instead, each of which inserts a few rows.

// bulkParams bounds the parameters of one multi-row INSERT: a table gets
// bulkParams/(columns bound) rows a statement. Not many more:
// modernc.org/sqlite's bind looks each parameter up among all the
// arguments, so binding n of them costs n² (with 1,100 parameters a
// statement, binding took two thirds of an import's time); and not fewer,
// since each statement has its cost in the driver and the VM whatever its
// rows. Measured with BenchmarkImport: 35 and 120 cost a little more than
// 70.
const bulkParams = 70

// bulkTable is one table that the bulk methods insert into.
type bulkTable int

const (
	bulkRecords bulkTable = iota
	bulkLocations
	bulkKeys
	bulkHistory
	numBulkTables
)

// bulkHead is the INSERT of each bulkTable up to VALUES, and bulkCols its
// number of columns. Locations: OR IGNORE, as qInsertLocation (a record may
// list two locations with the same key). Keys: a key already stored fails
// the statement with the primary key's violation, which storeErr makes
// resolver.ErrKeyTaken.
//
// OR FAIL rather than the default ABORT: a statement that fails keeps the
// rows it inserted before, which the bulk call takes back with all its
// other rows anyway (undo). An ABORT statement that writes several rows
// needs a statement journal to undo its own rows, and copies there every
// page it changes first, the B-trees' last pages that every statement of
// an import changes again: several kilobytes a statement.
var (
	bulkHead = [numBulkTables]string{
		bulkRecords:   `INSERT OR FAIL INTO records (id, urn, key, status, redirect, successor, reason, authority_id, created, updated, body, successor_key, successor_version) VALUES `,
		bulkLocations: `INSERT OR IGNORE INTO locations (key, record_id) VALUES `,
		bulkKeys:      `INSERT OR FAIL INTO keys (` + keyInsertCols + `) VALUES `,
		bulkHistory:   `INSERT OR FAIL INTO history (` + entryCols + `) VALUES `,
	}
	bulkCols = [numBulkTables]int{bulkRecords: 13, bulkLocations: 2, bulkKeys: 5, bulkHistory: 10}
)

// bulkSQL is the INSERT of rows rows into t. A column whose lits entry is
// set has that SQL literal in every row; the others are parameters.
func bulkSQL(t bulkTable, rows int, lits []string) string {
	var b strings.Builder
	b.WriteString(bulkHead[t])
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c, l := range lits {
			if c > 0 {
				b.WriteString(", ")
			}
			if l == "" {
				l = "?"
			}
			b.WriteString(l)
		}
		b.WriteByte(')')
	}
	return b.String()
}

// constantColumns finds the columns of rows (cols values a row) that hold
// the same integer, or NULL, in every row, and returns them as SQL
// literals ("" for the others) with the number of the others. Binding a
// parameter is most of what a column costs the driver, and the columns an
// import batch shares (times, authority, status, a NULL successor...) are
// about half of them; the statements are prepared for each call anyway.
// Only integers and NULL are written into the SQL: their text cannot be
// anything but a literal.
func constantColumns(vals []driver.Value, cols int) (lits []string, bound int) {
	lits = make([]string, cols)
	for c := range cols {
		lit := ""
		switch v := vals[c].(type) {
		case nil:
			lit = "NULL"
		case int64:
			lit = strconv.FormatInt(v, 10) // SQLite reads -9223372036854775808 as an integer too
		}
		for r := c + cols; lit != "" && r < len(vals); r += cols {
			switch v := vals[r].(type) {
			case nil:
				if vals[c] != nil {
					lit = ""
				}
			case int64:
				if x, ok := vals[c].(int64); !ok || x != v {
					lit = ""
				}
			default:
				lit = ""
			}
		}
		lits[c] = lit
		if lit == "" {
			bound++
		}
	}
	return lits, bound
}

// args returns the writer's buffer for the values of table's rows, empty,
// with room for rows rows. An import batch's rows take a megabyte of
// values, which the bulk calls would otherwise allocate (and clear) anew
// for every batch.
func (w *writer) args(table bulkTable, rows int) []driver.Value {
	return slices.Grow(w.argBuf[table][:0], rows*bulkCols[table])
}

// keepArgs keeps a buffer that args returned for the next call, without
// its values: they hold the batch's strings and blobs, which must not stay
// reachable.
func (w *writer) keepArgs(table bulkTable, a []driver.Value) {
	clear(a)
	w.argBuf[table] = a[:0]
}

// bulkArgs holds the rows for one table: bulkCols values a row, each of a
// type the driver binds as it is (int64, string, []byte or nil).
type bulkArgs struct {
	table bulkTable
	what  string // for errors: "inserting records"
	vals  []driver.Value
}

// insertRows inserts the rows of each of sets with multi-row INSERTs on
// the writer's driver connection, in order. The statements are prepared
// for the call and closed after it: the driver's statements belong to the
// connection, which database/sql lends out only for the call.
func (t *tx) insertRows(ctx context.Context, sets ...bulkArgs) error {
	if err := t.check(); err != nil {
		return err
	}
	var failed string // what was under way when err happened
	err := t.w.conn.Raw(func(dc any) error {
		conn, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the driver's connection (%T) cannot prepare statements with a context", dc)
		}
		// The driver interrupts a statement when ctx ends by starting a
		// goroutine for each statement whose ctx can end; the rows of one
		// statement take microseconds, so ctx is checked between them.
		stmtCtx := context.WithoutCancel(ctx)
		var nv []driver.NamedValue
		for _, set := range sets {
			failed = set.what
			cols := bulkCols[set.table]
			if len(set.vals) == 0 {
				continue
			}
			lits, bound := constantColumns(set.vals, cols)
			perStmt := max(1, bulkParams/max(bound, 1))
			var full driver.Stmt
			vals := set.vals
			for len(vals) > 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				rows := min(len(vals)/cols, perStmt)
				st := full
				if rows < perStmt || full == nil {
					s, err := conn.PrepareContext(stmtCtx, bulkSQL(set.table, rows, lits))
					if err != nil {
						return err
					}
					defer s.Close()
					if rows == perStmt {
						full = s
					}
					st = s
				}
				ex, ok := st.(driver.StmtExecContext)
				if !ok {
					return fmt.Errorf("the driver's statement (%T) cannot execute with a context", st)
				}
				nv = nv[:0]
				for i, v := range vals[:rows*cols] {
					if lits[i%cols] == "" {
						nv = append(nv, driver.NamedValue{Ordinal: len(nv) + 1, Value: v})
					}
				}
				if _, err := ex.ExecContext(stmtCtx, nv); err != nil {
					return err
				}
				vals = vals[rows*cols:]
			}
		}
		return nil
	})
	return storeErr(ctx, failed, err)
}

// TakenKeys implements resolver.BulkTx with one query: the keys travel as
// one JSON array, which json_each turns into rows, each looked up by the
// keys table's primary key.
func (t *tx) TakenKeys(ctx context.Context, keys []string) (map[string]bool, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	taken := make(map[string]bool)
	if len(keys) == 0 {
		return taken, nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := t.w.q[qTakenKeys].QueryContext(ctx, string(list))
	if err != nil {
		return nil, storeErr(ctx, "finding taken keys", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, storeErr(ctx, "finding taken keys", err)
		}
		taken[k] = true
	}
	return taken, storeErr(ctx, "finding taken keys", rows.Err())
}

// InsertRecords implements resolver.BulkTx. The records get the IDs after
// the highest stored one, which is what SQLite would give them one by one:
// records are never deleted, and Update's write lock keeps everyone else
// from inserting meanwhile. When the call fails (a key already stored:
// ErrKeyTaken), it deletes what it inserted (undo), so that nothing of it
// stays.
func (t *tx) InsertRecords(ctx context.Context, recs []*resolver.Record, keys [][]resolver.Key) (err error) {
	if len(recs) != len(keys) {
		return fmt.Errorf("sqlite: InsertRecords: %d records but %d key lists", len(recs), len(keys))
	}
	if err := t.check(); err != nil || len(recs) == 0 {
		return err
	}
	var last int64
	if err := t.w.q[qMaxRecordID].QueryRowContext(ctx).Scan(&last); err != nil {
		return storeErr(ctx, "inserting records", err)
	}
	if err := t.insertRecords(ctx, last, recs, keys); err != nil {
		t.undo(ctx, err, func(c context.Context) error {
			// Only this call's rows have IDs above last, and only its
			// keys and locations point at them.
			for _, ks := range keys {
				for _, k := range ks {
					if _, err := t.exec(c, "taking back keys", qDeleteKeyAbove, k.Key, last); err != nil {
						return err
					}
				}
			}
			if _, err := t.exec(c, "taking back records", qDeleteRecordsAbove, last); err != nil {
				return err
			}
			for _, r := range recs {
				for _, l := range r.Locations {
					if r.ID > last {
						if _, err := t.exec(c, "taking back locations", qDeleteLocation, l.Key, r.ID); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
		for i := range recs {
			recs[i].ID = 0
		}
		return err
	}
	return nil
}

// undo runs take, which deletes the rows of a bulk call that failed with
// err, so that the transaction can go on without them (resolver.BulkTx).
// The bulk calls do not run in a savepoint: a savepoint copies every page
// that the call changes into a journal first, and with keys that fall all
// over the keys B-tree (an import not sorted by name) that was a page for
// nearly every record, which the driver's allocator then gave back to the
// system one by one: three quarters of such an import's time. When take
// fails too, the transaction is left in doubt, and Update will not commit
// it.
func (t *tx) undo(ctx context.Context, err error, take func(context.Context) error) {
	if uerr := take(context.WithoutCancel(ctx)); uerr != nil && t.broken == nil {
		t.broken = fmt.Errorf("sqlite: a failed bulk write (%v) could not be taken back: %w", err, uerr)
	}
}

func (t *tx) insertRecords(ctx context.Context, last int64, recs []*resolver.Record, keys [][]resolver.Key) (err error) {
	recArgs := t.w.args(bulkRecords, len(recs))
	locArgs := t.w.args(bulkLocations, len(recs))
	keyArgs := t.w.args(bulkKeys, len(recs))
	defer func() {
		t.w.keepArgs(bulkRecords, recArgs)
		t.w.keepArgs(bulkLocations, locArgs)
		t.w.keepArgs(bulkKeys, keyArgs)
	}()
	var boxes recordBoxes
	for i, r := range recs {
		r.ID = last + int64(i) + 1
		id := driver.Value(r.ID) // one allocation for the record's rows in three tables
		recArgs = append(recArgs, id)
		if recArgs, err = appendRecordArgs(recArgs, r, &boxes); err != nil {
			return err
		}
		for _, l := range r.Locations {
			locArgs = append(locArgs, l.Key, id)
		}
		for j := range keys[i] {
			k := &keys[i][j]
			k.RecordID = r.ID
			if keyArgs, err = appendKeyArgs(keyArgs, k, id, k.Key == r.Key); err != nil {
				return err
			}
		}
	}
	return t.insertRows(ctx,
		bulkArgs{bulkRecords, "inserting records", recArgs},
		bulkArgs{bulkLocations, "indexing locations", locArgs},
		bulkArgs{bulkKeys, "storing keys", keyArgs})
}

// AppendAll implements resolver.BulkTx: each entry is sealed against the
// one before it, in order, under Update's write lock (as Append), and all
// are stored with multi-row INSERTs. As with Append, nothing of a call
// that fails stays (undo).
func (t *tx) AppendAll(ctx context.Context, entries []*resolver.Entry) error {
	if len(entries) == 0 {
		return t.check()
	}
	last, err := t.Head(ctx)
	if err != nil {
		return err
	}
	head := last.Seq
	args := t.w.args(bulkHistory, len(entries))
	defer func() { t.w.keepArgs(bulkHistory, args) }()
	var tm, action, authority, actor box
	for _, e := range entries {
		resolver.Seal(last, e)
		last = *e
		args = append(args, e.Seq, tm.int(micros(e.Time)), action.str(string(e.Action)), e.Subject, e.RecordID,
			authority.int(e.AuthorityID), actor.str(e.Actor), nonNil(e.Data), nonNil(e.Prev), e.Hash)
	}
	if err := t.insertRows(ctx, bulkArgs{bulkHistory, "appending to the history", args}); err != nil {
		t.undo(ctx, err, func(c context.Context) error {
			_, err := t.exec(c, "taking back history entries", qDeleteEntriesAbove, head)
			return err
		})
		return err
	}
	t.head, t.hasHead = cloneEntry(last), true
	return nil
}

var _ resolver.BulkTx = (*tx)(nil)
