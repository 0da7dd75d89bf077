package main

// urikit import and urikit export: the exchange formats of package
// recordio, to and from a server or a store.
//
// How an import resumes. Records are written in batches (one PutMany
// transaction each on a store; concurrent PUTs over the API), and each
// batch covers the lines of the input up to its last record. The lowest
// line below which every batch is committed is the import's frontier;
// after it moves, the frontier is written to a state file beside the
// input (FILE.import-state, replaced atomically). An import started again
// on the same file and target skips the records that end at or before the
// frontier. Whatever was committed beyond it (batches after a gap, the
// batch in flight when the process died) is written again, which changes
// nothing: a PUT that says what the record already says writes nothing,
// and withdrawing a withdrawn record again with the same reason and
// successor writes nothing, so no history entry is ever doubled. The
// state file is removed when the import has read the whole input.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
	"github.com/urikit/urikit/resolver/recordio"
	"github.com/urikit/urikit/uri"
	"github.com/urikit/urikit/urn"
)

func init() {
	register(command{name: "import", summary: "load records from JSON Lines or CSV into a resolver (resumable)", run: runImport})
	register(command{name: "export", summary: "write a resolver's records as JSON Lines or CSV", run: runExport})
}

const formatsHelp = `
Formats: JSON Lines (jsonl), one record a line, the body of PUT
/api/v1/names/{urn} plus "urn" ({"urn":…,"locations":[{"url":…,"type":…,
"label":…}],"aliases":[…],"metadata":{…},"redirect":303}; an exported
withdrawn record adds "status":"withdrawn", "reason" and "successor", and one
that dropped aliases "reserved":[…], the names that stay reserved to it); or CSV
with the header urn,url[,type,label] and one row per location, the rows of
one record together and in order (a record with two locations has two
rows). The format follows the file name (.csv is CSV, anything else JSON
Lines) unless --format says otherwise.`

func runImport(args []string, s *stdio) int {
	fs := newFlags("import", "import FILE [--format jsonl|csv] [--restart] [--workers N] [--batch N]",
		"Creates or replaces the record of every record in FILE (- for standard\n"+
			"input), as PUT does: a record already stored as given is left alone. A\n"+
			"withdrawn record is put, then withdrawn. A bad row is reported with its\n"+
			"line number and skipped whole (nothing of it is written); the others go\n"+
			"on, and the exit status is then 1.\n\n"+
			"Resuming: after an interruption (Ctrl-C, a crash, a lost connection) run\n"+
			"the same command again. Progress is kept in FILE.import-state, beside the\n"+
			"input: the last line below which everything is committed. The import goes\n"+
			"on from there; the few records after it that were already written are\n"+
			"written again, which changes nothing. The state file is removed when the\n"+
			"import ends. --restart ignores it and starts from the first line.\n"+
			"A CSV line that cannot be read (a quote left open) stops the import\n"+
			"there, after the records before it: correct that line and run the same\n"+
			"command again to go on from there.\n\n"+
			"Working directly on a data directory, records are written in batches of\n"+
			"one transaction each; against a server, by concurrent PUTs (--workers),\n"+
			"so a file that names one record twice should be imported directly.\n"+
			"A progress bar is shown on a terminal, a line every 10 seconds otherwise.\n"+
			formatsHelp+"\n"+targetHelp, s)
	t := addTarget(fs)
	format := fs.String("format", "", "jsonl or csv (default: from the file name)")
	restart := fs.Bool("restart", false, "ignore FILE.import-state and import from the first line")
	workers := fs.Int("workers", 8, "concurrent PUTs against a server")
	batch := fs.Int("batch", 0, "records per transaction on a data directory or database (default 2000, 10000 on PostgreSQL)")
	quiet := fs.Bool("quiet", false, "no progress display")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) != 1 {
		return usageErr(s, "import", "give exactly one FILE (- for standard input)")
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "import", "%v", err)
	}
	if *workers < 1 || *workers > 256 || *batch < 0 || *batch > 100000 {
		return usageErr(s, "import", "--workers is 1 to 256 and --batch 1 to 100000")
	}
	path := pos[0]
	f := recordio.FormatOf(path)
	if *format != "" {
		var err error
		if f, err = recordio.ParseFormat(*format); err != nil {
			return usageErr(s, "import", "--format: %v", err)
		}
	}

	imp := &importer{s: s, t: t, path: path, format: f, restart: *restart, quiet: *quiet, workers: *workers, batch: *batch}
	return imp.run()
}

// importer is one run of urikit import.
type importer struct {
	s       *stdio
	t       *target
	path    string
	format  recordio.Format
	restart bool
	quiet   bool
	workers int
	batch   int

	in        io.Reader
	size      int64 // of the input, 0 when unknown
	read      atomic.Int64
	statePath string // "" for standard input
	state     importState

	outMu sync.Mutex // serializes reports to s.err

	done, created, withdrawn, bad atomic.Int64
	startRecords                  int64 // done before this run

	stateBroken bool        // the state file cannot be written
	saved       importState // what the state file holds

	tty   bool // progress as a bar on a terminal
	drawn bool // the bar is on screen (outMu)
}

// importState is the content of FILE.import-state.
type importState struct {
	Version int       `json:"version"`
	Input   string    `json:"input"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Target  string    `json:"target"`
	Format  string    `json:"format"`
	// Line: every record that ends at or before it is committed, or was
	// reported bad.
	Line      int   `json:"line"`
	Records   int64 `json:"records"` // written up to Line
	Created   int64 `json:"created"`
	Withdrawn int64 `json:"withdrawn"`
	Bad       int64 `json:"bad"` // bad rows up to Line
	// After a stop on a line that cannot be read: the size and SHA-256
	// of the input up to the end of Line. The file is then corrected
	// after Line, which changes its size and time: a rerun still goes on
	// from Line when those bytes are the same.
	PrefixSize   int64  `json:"prefix_size,omitempty"`
	PrefixSHA256 string `json:"prefix_sha256,omitempty"`
}

const stateSuffix = ".import-state"

// job is one batch of records, written together.
type job struct {
	seq     int
	items   []recordio.Item
	upTo    int                  // the last line the batch covers
	rowErrs []*recordio.RowError // bad rows read since the previous batch
	prep    any                  // what the sink's prepare made of items, if it has one
	res     []itemResult
	err     error // fatal: the batch may not be committed
}

// itemResult is what became of one record.
type itemResult struct {
	created, withdrawn bool
	err                error
}

// importSink writes batches of records.
type importSink interface {
	// write writes the records of one batch and returns each one's
	// result; an error means the batch may not have been written whole
	// and the import must stop.
	// prep is what prepare returned for items, when the sink is a
	// preparer.
	write(ctx context.Context, items []recordio.Item, prep any) ([]itemResult, error)
	// concurrent reports how many batches may be written at once.
	concurrent(workers int) int
	// batchSize is the number of records a batch holds, given --batch
	// (0 when it is not given).
	batchSize(batch int) int
}

// preparer is a sink that does part of a batch's work before the batch's
// turn to be written, in a stage of its own: the next batch is checked
// while the one before is being written, and the batches still reach
// write in the order of the input.
type preparer interface {
	prepare(items []recordio.Item) any
}

func (imp *importer) run() int {
	s := imp.s
	if imp.path == "-" {
		imp.in = s.in
	} else {
		f, err := os.Open(imp.path)
		if err != nil {
			fmt.Fprintf(s.err, "urikit import: %v\n", err)
			return exitInvalid
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			fmt.Fprintf(s.err, "urikit import: %s is not a file\n", imp.path)
			return exitInvalid
		}
		imp.in, imp.size = f, fi.Size()
		if st := imp.loadState(fi); st >= 0 {
			return st
		}
	}

	// Reads stop at the first SIGINT; the batches being written are
	// finished, so that the state file says exactly what was committed.
	sigCtx, stop := interruptible()
	defer stop()
	readCtx, stopReads := context.WithCancel(sigCtx)
	defer stopReads()
	// Writes are not cut off by SIGINT: a batch under way is finished.
	// After a fatal error no new batch starts, and over the API the
	// requests under way are cancelled. On a store the context has no
	// Done channel: the SQLite driver then spares a goroutine per
	// statement, which is a good part of an import's time.
	var stopping atomic.Bool
	writeCtx, cancelWrites := context.Background(), func() {}
	if imp.t.remote() {
		writeCtx, cancelWrites = context.WithCancel(context.Background())
	}
	defer cancelWrites()

	d, err := imp.t.open(writeCtx, s, "import", true)
	if err != nil {
		return fail(s, "import", imp.t, err)
	}
	defer d.Close()
	sink := d.importer()
	if rs, ok := sink.(*remoteSink); ok {
		if err := rs.preflight(writeCtx); err != nil {
			return fail(s, "import", imp.t, err)
		}
	}

	resume := imp.state.Line
	imp.done.Store(imp.state.Records)
	imp.created.Store(imp.state.Created)
	imp.withdrawn.Store(imp.state.Withdrawn)
	imp.bad.Store(imp.state.Bad)
	if resume > 0 {
		fmt.Fprintf(s.err, "urikit import: resuming after line %d (%s done before, %s)\n", resume, counted(imp.state.Records, "record", "records"), imp.statePath)
	}

	// An import allocates much and keeps little (the few batches in
	// flight), so the collector runs often: at the default GOGC it took a
	// sixth of the process's time. A larger heap costs page faults on
	// first touch instead, dear on a virtual machine: on 200,000 records
	// GOGC 200 took least processor time (100 and 400 about a sixth more).
	// GOGC, when set, still decides.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}

	start := time.Now()
	prog := imp.startProgress(start)

	// Few batches in flight: the reader's, one waiting, the one being
	// prepared and the one being written.
	jobs := make(chan *job, 1)
	results := make(chan *job, 2*sink.concurrent(imp.workers))
	var readErr error
	go func() {
		defer close(jobs)
		readErr = imp.readJobs(readCtx, jobs, resume, sink.batchSize(imp.batch))
	}()
	toWrite := (<-chan *job)(jobs)
	if p, ok := sink.(preparer); ok {
		prepared := make(chan *job)
		go func() {
			defer close(prepared)
			for j := range jobs {
				if !stopping.Load() {
					j.prep = p.prepare(j.items)
				}
				prepared <- j
			}
		}()
		toWrite = prepared
	}
	var wg sync.WaitGroup
	for range sink.concurrent(imp.workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range toWrite {
				if stopping.Load() {
					j.err = context.Canceled
					if d, ok := j.prep.(interface{ discard() }); ok {
						d.discard() // a batch after it may wait for it
					}
				} else {
					j.res, j.err = sink.write(writeCtx, j.items, j.prep)
					j.prep = nil // garbage now, before the batch is settled
				}
				results <- j
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	// Collect results in any order; the frontier moves over the batches
	// that are done without a gap before them.
	pending := map[int]*job{}
	next := 0
	var fatal error
	lastSave := time.Now()
	for j := range results {
		if j.err != nil {
			if fatal == nil {
				fatal = j.err
				stopReads()
				stopping.Store(true) // no new batch starts
				cancelWrites()       // and the requests under way end soon
			}
			continue
		}
		pending[j.seq] = j
		for {
			jj, ok := pending[next]
			if !ok || fatal != nil {
				break
			}
			delete(pending, next)
			next++
			imp.settle(jj)
		}
		if time.Since(lastSave) > 250*time.Millisecond {
			imp.saveState()
			lastSave = time.Now()
		}
	}
	prog.stop()
	imp.saveState()

	elapsed := time.Since(start)
	rate := float64(imp.done.Load()-imp.startRecords) / max(elapsed.Seconds(), 1e-9)
	hint := func() string {
		switch {
		case imp.statePath == "":
			return "run it again: records already written as given are left as they are"
		case imp.state.Line == 0:
			return "run the same command again"
		}
		return fmt.Sprintf("the records up to line %d are in (%s); run the same command again to go on from there", imp.state.Line, imp.statePath)
	}
	switch {
	case fatal != nil:
		fmt.Fprintf(s.err, "urikit import: stopped: %s\nurikit import: %s\n", errText(fatal, imp.t), hint())
		return exitInvalid
	case sigCtx.Err() != nil:
		fmt.Fprintf(s.err, "urikit import: interrupted; %s\n", hint())
		return exitInvalid
	case readErr != nil:
		imp.readStopped(readErr)
		return exitInvalid
	}
	if imp.statePath != "" {
		if err := os.Remove(imp.statePath); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(s.err, "urikit import: removing %s: %v\n", imp.statePath, err)
		}
	}
	fmt.Fprintf(s.out, "imported %s into the %s: %s created, %s replaced or already there, %s withdrawn; %s skipped (%.1fs, %s records/s)\n",
		counted(imp.done.Load(), "record", "records"), imp.t, count(imp.created.Load()), count(imp.done.Load()-imp.created.Load()),
		count(imp.withdrawn.Load()), counted(imp.bad.Load(), "bad row", "bad rows"), elapsed.Seconds(), count(int64(rate)))
	if imp.bad.Load() > 0 {
		return exitInvalid
	}
	return exitOK
}

// readJobs reads the input into batches. Records that end at or before
// resume were done by an earlier run and are skipped, and so are the bad
// rows before it (reported then).
func (imp *importer) readJobs(ctx context.Context, jobs chan<- *job, resume, size int) error {
	rd := recordio.NewReader(&countingReader{r: imp.in, n: &imp.read}, imp.format)
	j := &job{items: make([]recordio.Item, 0, size)}
	seq := 0
	send := func() bool {
		j.seq = seq
		seq++
		select {
		case jobs <- j:
		case <-ctx.Done():
			return false
		}
		j = &job{upTo: j.upTo, items: make([]recordio.Item, 0, size)}
		return true
	}
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var re *recordio.RowError
		if errors.As(err, &re) {
			if re.Line > resume {
				j.rowErrs = append(j.rowErrs, re)
				j.upTo = max(j.upTo, re.Line)
			}
			continue
		}
		if err != nil {
			// The records and bad rows read before go in first: the
			// frontier moves past them, and a rerun goes on from there.
			if (len(j.items) > 0 || len(j.rowErrs) > 0) && !send() {
				return ctx.Err()
			}
			return err
		}
		if it.EndLine <= resume {
			continue
		}
		if it.Status == resolver.Withdrawn {
			// Checked before anything is written, so that a record is
			// never put and then left unwithdrawn.
			if err := checkWithdrawal(it); err != nil {
				j.rowErrs = append(j.rowErrs, &recordio.RowError{Line: it.Line, Err: err})
				j.upTo = max(j.upTo, it.EndLine)
				continue
			}
		}
		j.items = append(j.items, it)
		j.upTo = it.EndLine
		if len(j.items) >= size && !send() {
			return ctx.Err()
		}
	}
	if len(j.items) > 0 || len(j.rowErrs) > 0 {
		if !send() {
			return ctx.Err()
		}
	}
	return nil
}

// readStopped reports an import that could not read its input to the
// end: which line, and why; what is in; and what to do.
func (imp *importer) readStopped(err error) {
	s := imp.s
	done := fmt.Sprintf("%s in (%s created, %s withdrawn), %s skipped",
		counted(imp.done.Load(), "record is", "records are"), count(imp.created.Load()), count(imp.withdrawn.Load()), counted(imp.bad.Load(), "bad row", "bad rows"))
	var ue *recordio.UnreadableError
	if !errors.As(err, &ue) {
		// The input itself failed (a disk, a pipe), not its content.
		fmt.Fprintf(s.err, "urikit import: reading %s: %v\n", imp.path, err)
		switch {
		case imp.statePath == "":
			fmt.Fprintf(s.err, "urikit import: stopped: %s; import the input again: the records already in as given are left as they are\n", done)
		case imp.state.Line == 0:
			fmt.Fprintf(s.err, "urikit import: stopped: %s; run the same command again once %s can be read\n", done, imp.path)
		default:
			fmt.Fprintf(s.err, "urikit import: stopped: %s; run the same command again once %s can be read: it goes on after line %d (%s)\n",
				done, imp.path, imp.state.Line, imp.statePath)
		}
		return
	}
	fmt.Fprintf(s.err, "urikit import: %s line %d cannot be read: %s\n", imp.path, ue.Line, ue.Err)
	fmt.Fprintf(s.err, "urikit import: stopped at line %d: %s\n", ue.Line, done)
	switch {
	case imp.statePath == "":
		fmt.Fprintf(s.err, "urikit import: correct line %d, then import the input again: the records already in as given are left as they are\n", ue.Line)
	case imp.state.Line == 0:
		fmt.Fprintf(s.err, "urikit import: correct line %d, then run the same command again\n", ue.Line)
	default:
		imp.notePrefix()
		fmt.Fprintf(s.err, "urikit import: correct line %d, then run the same command again: it goes on from line %d "+
			"(%s keeps the place; lines 1 to %d must stay as they are)\n",
			ue.Line, imp.state.Line+1, imp.statePath, imp.state.Line)
	}
}

// checkWithdrawal applies Service.Withdraw's checks on reason and
// successor (a successor equivalent to the record's name or an alias is
// refused there too).
func checkWithdrawal(it recordio.Item) error {
	if len(it.Reason) > 1024 || !utf8.ValidString(it.Reason) {
		return errors.New("reason: UTF-8 text of at most 1024 bytes")
	}
	if it.Successor != "" {
		if _, err := uri.Parse(it.Successor); err != nil {
			var ue *uri.Error
			if errors.As(err, &ue) {
				return fmt.Errorf("successor: not an absolute URI: %s (at byte %d)", ue.Reason, ue.Offset)
			}
			return fmt.Errorf("successor: not an absolute URI: %v", err)
		}
		for _, name := range append([]string{it.URN}, it.Aliases...) {
			if sameKey(name, it.Successor) {
				return fmt.Errorf("successor: %s names %s itself (its name or an alias): a successor is another resource", it.Successor, it.URN)
			}
		}
	}
	return nil
}

// settle counts and reports a batch that is done, in input order, and
// moves the frontier past it.
func (imp *importer) settle(j *job) {
	for _, re := range j.rowErrs {
		imp.report(re.Line, re.Err)
	}
	imp.bad.Add(int64(len(j.rowErrs)))
	for i, r := range j.res {
		if r.err != nil {
			imp.report(j.items[i].Line, fmt.Errorf("%s: %s", j.items[i].URN, errText(r.err, nil)))
			imp.bad.Add(1)
			continue
		}
		imp.done.Add(1)
		if r.created {
			imp.created.Add(1)
		}
		if r.withdrawn {
			imp.withdrawn.Add(1)
		}
	}
	imp.state.Line = max(imp.state.Line, j.upTo)
}

func (imp *importer) report(line int, err error) {
	imp.outMu.Lock()
	defer imp.outMu.Unlock()
	imp.clearLine()
	fmt.Fprintf(imp.s.err, "urikit import: %s line %d: %v (skipped)\n", imp.path, line, err)
}

// ---- the state file ----

func (imp *importer) targetID() string {
	switch {
	case imp.t.server != "":
		return strings.TrimRight(imp.t.server, "/")
	case imp.t.db != "":
		return redactDSN(imp.t.db)
	}
	abs, err := filepath.Abs(imp.t.data)
	if err != nil {
		abs = imp.t.data
	}
	return "data:" + abs
}

// loadState reads FILE.import-state, if any; it returns an exit status
// to stop with, or -1.
func (imp *importer) loadState(fi os.FileInfo) int {
	imp.statePath = imp.path + stateSuffix
	abs, err := filepath.Abs(imp.path)
	if err != nil {
		abs = imp.path
	}
	fresh := importState{Version: 1, Input: abs, Size: fi.Size(), ModTime: fi.ModTime().UTC(),
		Target: imp.targetID(), Format: imp.format.String()}
	imp.state = fresh
	if imp.restart {
		return -1
	}
	b, err := os.ReadFile(imp.statePath)
	if errors.Is(err, os.ErrNotExist) {
		return -1
	}
	var old importState
	if err == nil {
		err = json.Unmarshal(b, &old)
	}
	if err != nil {
		// A state file cut short (the machine went down as it was
		// written): start again from the first line, which is safe.
		fmt.Fprintf(imp.s.err, "urikit import: %s cannot be read (%v); starting from the first line\n", imp.statePath, err)
		return -1
	}
	if old.Version == 1 && old.Input == fresh.Input && old.Target == fresh.Target && old.Format == fresh.Format &&
		(old.Size != fresh.Size || !old.ModTime.Equal(fresh.ModTime)) && imp.samePrefix(old) {
		fmt.Fprintf(imp.s.err, "urikit import: %s has changed since the import stopped, but not in lines 1 to %d\n", imp.path, old.Line)
		old.Size, old.ModTime, old.PrefixSize, old.PrefixSHA256 = fresh.Size, fresh.ModTime, 0, ""
	}
	if old.Version != 1 || old.Input != fresh.Input || old.Size != fresh.Size || !old.ModTime.Equal(fresh.ModTime) ||
		old.Target != fresh.Target || old.Format != fresh.Format {
		what := "another version of the file"
		switch {
		case old.Target != fresh.Target:
			what = "an import into " + old.Target
		case old.Format != fresh.Format:
			what = "an import as " + old.Format
		}
		fmt.Fprintf(imp.s.err, "urikit import: %s is left from %s; remove it or pass --restart to import from the first line\n", imp.statePath, what)
		return exitInvalid
	}
	imp.state = old
	imp.startRecords = old.Records
	return -1
}

// notePrefix keeps in the state file the size and SHA-256 of the input
// up to the end of the frontier's line, for samePrefix. Without them (the
// input cannot be read again) a rerun on the corrected file is refused,
// which is safe.
func (imp *importer) notePrefix() {
	f, err := os.Open(imp.path)
	if err != nil {
		return
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(f, 64<<10)
	var n int64
	// Lines end at "\n" for both readers (encoding/csv counts a CRLF as
	// one line too).
	for lines := 0; lines < imp.state.Line; {
		b, err := br.ReadSlice('\n')
		h.Write(b)
		n += int64(len(b))
		switch {
		case err == nil:
			lines++
		case !errors.Is(err, bufio.ErrBufferFull):
			return // shorter than it was: not the file read
		}
	}
	imp.state.PrefixSize, imp.state.PrefixSHA256 = n, hex.EncodeToString(h.Sum(nil))
	imp.saveState()
}

// samePrefix reports whether the input begins with the bytes a stop on
// an unreadable line noted in st (notePrefix): whatever changed is after
// the records that are in.
func (imp *importer) samePrefix(st importState) bool {
	if st.PrefixSize <= 0 || st.PrefixSHA256 == "" || st.Line <= 0 {
		return false
	}
	f, err := os.Open(imp.path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, st.PrefixSize); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == st.PrefixSHA256
}

// saveState replaces the state file with the current frontier. A failure
// is reported once: the import goes on, without being resumable.
func (imp *importer) saveState() {
	if imp.statePath == "" || imp.stateBroken || imp.state.Line == 0 {
		return // nothing to resume from
	}
	st := imp.state
	st.Records, st.Created, st.Withdrawn, st.Bad = imp.done.Load(), imp.created.Load(), imp.withdrawn.Load(), imp.bad.Load()
	if st == imp.saved {
		return
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	tmp := imp.statePath + ".tmp"
	err := os.WriteFile(tmp, append(b, '\n'), 0o600)
	if err == nil {
		err = os.Rename(tmp, imp.statePath)
	}
	if err != nil {
		imp.stateBroken = true
		imp.outMu.Lock()
		imp.clearLine()
		fmt.Fprintf(imp.s.err, "urikit import: cannot keep the progress in %s (%v); this import cannot be resumed\n", imp.statePath, err)
		imp.outMu.Unlock()
		return
	}
	imp.saved = st
}

// ---- progress ----

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type progress struct {
	quit chan struct{}
	done chan struct{}
}

func (p *progress) stop() {
	if p.quit != nil {
		close(p.quit)
		<-p.done
	}
}

// startProgress shows the import's progress: a bar redrawn on a
// terminal, a plain line every 10 seconds otherwise.
func (imp *importer) startProgress(start time.Time) *progress {
	p := &progress{}
	if imp.quiet {
		return p
	}
	imp.tty = isTerminalWriter(imp.s.err)
	every := 10 * time.Second
	if imp.tty {
		every = 200 * time.Millisecond
	}
	p.quit, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-p.quit:
				imp.outMu.Lock()
				imp.clearLine()
				imp.outMu.Unlock()
				return
			case <-tick.C:
				imp.drawProgress(start)
			}
		}
	}()
	return p
}

func (imp *importer) drawProgress(start time.Time) {
	imp.outMu.Lock()
	defer imp.outMu.Unlock()
	n := imp.done.Load()
	rate := float64(n-imp.startRecords) / max(time.Since(start).Seconds(), 1e-9)
	frac := -1.0
	if imp.size > 0 {
		frac = min(float64(imp.read.Load())/float64(imp.size), 1)
	}
	stats := fmt.Sprintf("%s, %s bad, %s/s", counted(n, "record", "records"), count(imp.bad.Load()), count(int64(rate)))
	if !imp.tty {
		if frac >= 0 {
			stats = fmt.Sprintf("%3.0f%%  %s", 100*frac, stats)
		}
		fmt.Fprintf(imp.s.err, "urikit import: %s\n", stats)
		return
	}
	bar := ""
	if frac >= 0 {
		const width = 30
		full := int(frac * width)
		bar = fmt.Sprintf("[%s%s] %3.0f%%  ", strings.Repeat("█", full), strings.Repeat("·", width-full), 100*frac)
	}
	fmt.Fprintf(imp.s.err, "\r\x1b[K%s%s", bar, stats)
	imp.drawn = true
}

// clearLine erases the progress bar before other output; outMu is held.
func (imp *importer) clearLine() {
	if imp.drawn {
		fmt.Fprint(imp.s.err, "\r\x1b[K")
		imp.drawn = false
	}
}

func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// counted is n, written by count, and the noun for one or for many:
// "1 record", "2,000 records".
func counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// errText is an error on one line for a report.
func errText(err error, t *target) string {
	var e *resolver.Error
	if errors.As(err, &e) {
		msg := e.Error()
		if e.Kind == resolver.KindConflict && e.Record != "" && !strings.Contains(msg, e.Record) {
			msg += " (the record in the way: " + e.Record + ")"
		}
		if e.Kind == resolver.KindInternal && e.Err != nil && !errors.Is(e.Err, client.ErrNotAPI) {
			msg += ": " + e.Err.Error()
		}
		if e.Kind == resolver.KindUnavailable && t != nil && !t.remote() {
			msg += " [" + t.String() + "]"
		}
		return msg
	}
	return err.Error()
}

// ---- sinks ----

// defaultBatch is the records of a transaction on a store, unless --batch
// or the store says otherwise.
const defaultBatch = 2000

// localSink writes a batch in one PutMany transaction, as the operator.
type localSink struct {
	svc  *resolver.Service
	last *localBatch // the batch prepared last (prepare runs in one goroutine, in order)
}

// localBatch is a batch prepared for localSink.write, linked to the ones
// before it.
type localBatch struct {
	pb        *resolver.PreparedBatch
	withdraws bool          // some of its rows are withdrawn (after PutPrepared, each in a transaction of its own)
	written   chan struct{} // closed when write returns, or the batch is discarded
	// What write waits for before it starts, so that the outcome is the
	// file's order's: every channel of all, and one of any. The batch
	// two before is written; and the batch before has let the next one
	// start (Turned), or, when the two share a name or that one
	// withdraws names, is written.
	all, any    []<-chan struct{}
	prevWritten <-chan struct{} // the written of the batch before this one
}

// concurrent: one batch at a time, or on a store whose transactions may
// store new records before their turn (PostgreSQL), two: one stores its
// rows while the one before appends its history and commits, and the
// database server works on both. 10,000,000 records went in at
// 49,800–52,200/s as a first load, against 42,600/s one batch at a time
// (BENCHMARKS.md); three at once were slower than two.
func (l *localSink) concurrent(int) int {
	if _, ok := l.svc.Store().(resolver.TurnTaker); ok {
		return 2
	}
	return 1
}

func (l *localSink) batchSize(batch int) int {
	if batch > 0 {
		return batch // --batch
	}
	// A store may know better: on PostgreSQL each transaction's fixed
	// costs (round trips, the COPYs' set-up, the commit) weigh more.
	if s, ok := l.svc.Store().(interface{ ImportBatch() int }); ok && s.ImportBatch() > 0 {
		return s.ImportBatch()
	}
	return defaultBatch
}
func (r *remoteSink) concurrent(w int) int    { return w }
func (r *remoteSink) batchSize(batch int) int { return 1 } // one PUT is one request

// prepare checks a batch's records (Service.PrepareMany) while the batch
// before is being written, and links it to that one.
func (l *localSink) prepare(items []recordio.Item) any {
	in := make([]resolver.NamedInput, len(items))
	for i, it := range items {
		in[i] = it.NamedInput
	}
	b := &localBatch{pb: l.svc.PrepareMany(resolver.Operator, in), written: make(chan struct{})}
	for _, it := range items {
		b.withdraws = b.withdraws || it.Status == resolver.Withdrawn
	}
	if prev := l.last; prev != nil {
		if prev.prevWritten != nil {
			b.all = append(b.all, prev.prevWritten)
		}
		if prev.withdraws || b.pb.Shares(prev.pb) {
			b.all = append(b.all, prev.written)
		} else {
			b.any = []<-chan struct{}{prev.written, prev.pb.Turned()}
		}
		b.prevWritten = prev.written
	}
	l.last = b
	return b
}

// discard releases a prepared batch that will not be written.
func (b *localBatch) discard() { close(b.written) }

func (l *localSink) write(ctx context.Context, items []recordio.Item, prep any) ([]itemResult, error) {
	b, _ := prep.(*localBatch)
	if b == nil {
		in := make([]resolver.NamedInput, len(items))
		for i, it := range items {
			in[i] = it.NamedInput
		}
		b = &localBatch{pb: l.svc.PrepareMany(resolver.Operator, in), written: make(chan struct{})}
	}
	defer close(b.written)
	for _, c := range b.all {
		<-c
	}
	if len(b.any) == 2 {
		select {
		case <-b.any[0]:
		case <-b.any[1]:
		}
	}
	res, err := l.svc.PutPrepared(ctx, b.pb)
	if err != nil {
		return nil, err
	}
	out := make([]itemResult, len(items))
	for i, it := range items {
		out[i] = itemResult{created: res[i].Created, err: res[i].Err}
		var reserveErr error // a reserved name refused: the record goes on as the file says
		if res[i].Err == nil && len(it.Reserved) > 0 {
			reserveErr = reserve(ctx, it, l.holder, func(in resolver.RecordInput) error {
				_, _, err := l.svc.Put(ctx, resolver.Operator, it.URN, in)
				return err
			})
			if reserveErr != nil && fatalKind(reserveErr) {
				return nil, reserveErr
			}
			out[i].err = reserveErr
		}
		if it.Status != resolver.Withdrawn {
			continue
		}
		if res[i].Err != nil && !l.alreadyWithdrawn(ctx, it, res[i].Err) {
			continue
		}
		// Put (or found withdrawn by an earlier run): withdraw, which
		// changes nothing when it is already withdrawn as the file says,
		// and gives it the file's reason and successor when they differ.
		if _, err := l.svc.Withdraw(ctx, resolver.Operator, it.URN, it.Reason, it.Successor); err != nil {
			if fatalKind(err) {
				return nil, err
			}
			out[i].err = err
			continue
		}
		// Counted as withdrawn by this import only when it was live:
		// a record found withdrawn as the file says is already there.
		out[i].err, out[i].withdrawn = reserveErr, res[i].Err == nil
	}
	return out, nil
}

// reserve keeps an imported record's reserved names (Item.Reserved, the
// aliases it dropped in the directory it was exported from) reserved to it
// here, as the record that was put (it.Aliases) is stored: by the same two
// writes that reserved them there, a put that lists them as aliases and
// one that drops them again (the store then keeps their keys as retired).
// The history so says how they came to be reserved, and urikit verify,
// which checks that a retired key was once an alias, passes. holder says
// who holds a name: "" when nobody does, "mine" when it is already
// reserved to this record (a rerun of the import: nothing is written), or
// what another record holds it as, which refuses the line: names are never
// reused (README), and one reserved in the source cannot be another
// record's here.
func reserve(ctx context.Context, it recordio.Item, holder func(context.Context, recordio.Item, string) (string, error), put func(resolver.RecordInput) error) error {
	var free []string
	var refused error
	for _, n := range it.Reserved {
		h, err := holder(ctx, it, n)
		switch {
		case err != nil:
			return err
		case h == "mine":
		case h != "":
			if refused == nil {
				refused = &resolver.Error{Kind: resolver.KindConflict, Offset: -1,
					Message: fmt.Sprintf("reserved name %s is %s here: it cannot be reserved to %s (the record is written without it)", n, h, it.URN)}
			}
		default:
			free = append(free, n)
		}
	}
	if len(free) == 0 {
		return refused
	}
	// A put lists at most MaxAliases aliases, and a record may have
	// dropped more over its life than it may list at once: the names go
	// in chunks, each put dropping the chunk before (which stays
	// reserved) and the last put the last chunk. When the record's own
	// aliases leave no room, a chunk's put lists the chunk alone: the
	// final put gives the record its aliases back, which a record may
	// take up again (they were reserved to it meanwhile).
	room, size := resolver.DefaultMaxAliases-len(it.Aliases), resolver.DefaultMaxAliases-len(it.Aliases)
	if room <= 0 {
		size = resolver.DefaultMaxAliases
	}
	for chunk := range slices.Chunk(free, size) {
		in := it.RecordInput
		if room > 0 {
			in.Aliases = append(slices.Clone(it.Aliases), chunk...)
		} else {
			in.Aliases = chunk
		}
		if err := put(in); err != nil {
			return fmt.Errorf("reserving %s: %w", strings.Join(chunk, ", "), err)
		}
	}
	if err := put(it.RecordInput); err != nil {
		return err
	}
	return refused
}

// holder is reserve's holder on a store, which tells a retired key's
// record from another's.
func (l *localSink) holder(ctx context.Context, it recordio.Item, name string) (string, error) {
	u, err := urn.Parse(name)
	if err != nil {
		return "", err
	}
	rec, role, err := l.svc.Store().RecordByKey(ctx, u.Key())
	switch {
	case errors.Is(err, resolver.ErrNotFound):
		return "", nil
	case err != nil:
		return "", err
	case sameKey(rec.URN, it.URN) && role == resolver.RoleRetired:
		return "mine", nil
	case role == resolver.RoleRetired:
		return "reserved to " + rec.URN, nil
	case role == resolver.RoleName:
		return "the name of a record", nil
	}
	return "an alias of " + rec.URN, nil
}

// alreadyWithdrawn reports whether a put refused as a conflict was refused
// because the record is withdrawn (an earlier run of the import did it).
func (l *localSink) alreadyWithdrawn(ctx context.Context, it recordio.Item, err error) bool {
	if resolver.KindOf(err) != resolver.KindConflict {
		return false
	}
	u, perr := urn.Parse(it.URN)
	if perr != nil {
		return false
	}
	rec, lerr := l.svc.Lookup(ctx, u)
	return lerr == nil && rec.Status == resolver.Withdrawn && rec.Key == u.Key()
}

// fatalKind: errors after which no other record can be written either.
func fatalKind(err error) bool {
	if errors.Is(err, client.ErrNotAPI) {
		return true // not a urikit server: every request would fail alike
	}
	switch resolver.KindOf(err) {
	case resolver.KindUnavailable, resolver.KindUnauthorized:
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// remoteSink PUTs one record at a time; the importer runs several.
type remoteSink struct{ c *client.Client }

func (r *remoteSink) write(ctx context.Context, items []recordio.Item, _ any) ([]itemResult, error) {
	out := make([]itemResult, len(items))
	for i, it := range items {
		res, err := r.one(ctx, it)
		if err != nil && fatalKind(err) {
			return nil, err
		}
		res.err = err
		out[i] = res
	}
	return out, nil
}

// preflight checks the token before the first record: the admin token
// may write no name, and an unknown token none either, so that an import
// with the wrong one stops at once instead of refusing every record. It
// asks whose token it is (GET /api/v1/token), which any token may: asking
// for something only the admin may read would be refused to a maintainer,
// the right token, and counted and logged as a 403 on every import. A
// server older than that operation is asked the old way.
func (r *remoteSink) preflight(ctx context.Context) error {
	id, err := r.c.WhoAmI(ctx)
	if resolver.KindOf(err) == resolver.KindNotFound {
		return r.preflightOld(ctx)
	}
	switch {
	case err != nil:
		return err
	case id.Admin:
		return errAdminImports
	}
	return nil
}

var errAdminImports = &resolver.Error{Kind: resolver.KindForbidden, Offset: -1,
	Message: "this is the admin token, which writes no names: import with a token of the naming authority that owns them"}

// preflightOld tells the admin token from a maintainer's on a server
// without GET /api/v1/token: only the admin may list the authorities.
func (r *remoteSink) preflightOld(ctx context.Context) error {
	_, err := r.c.Authorities(ctx)
	switch k := resolver.KindOf(err); {
	case err == nil:
		return errAdminImports
	case k == resolver.KindForbidden:
		return nil // a maintainer's token, as it should be
	default:
		return err
	}
}

func (r *remoteSink) one(ctx context.Context, it recordio.Item) (itemResult, error) {
	var res itemResult
	var err error
	retry(ctx, func() error {
		_, res.created, err = r.c.Put(ctx, it.URN, it.RecordInput)
		return err
	})
	var reserveErr error // a reserved name refused: the record goes on as the file says
	if err == nil && len(it.Reserved) > 0 {
		reserveErr = reserve(ctx, it, r.holder, func(in resolver.RecordInput) error {
			var err error
			retry(ctx, func() error {
				_, _, err = r.c.Put(ctx, it.URN, in)
				return err
			})
			return err
		})
		if reserveErr != nil && fatalKind(reserveErr) {
			return res, reserveErr
		}
	}
	if it.Status != resolver.Withdrawn {
		if err != nil {
			return res, err // the put's own
		}
		return res, reserveErr
	}
	live := err == nil // put: the record is live until the withdrawal below
	if err != nil {
		if resolver.KindOf(err) != resolver.KindConflict {
			return res, err
		}
		cur, gerr := r.c.Get(ctx, it.URN)
		if gerr != nil || cur.Status != resolver.Withdrawn || !sameKey(cur.URN, it.URN) {
			return res, err
		}
	}
	retry(ctx, func() error {
		_, err = r.c.Withdraw(ctx, it.URN, it.Reason, it.Successor)
		return err
	})
	res.withdrawn = err == nil && live
	if err == nil {
		err = reserveErr
	}
	return res, err
}

// holder is reserve's holder over the API, which answers a reserved name
// 404 without saying whose it is: a name reserved here already is this
// record's (a rerun of the import) when the record's history, which anyone
// may read, once gave it as an alias, and another record's otherwise.
func (r *remoteSink) holder(ctx context.Context, it recordio.Item, name string) (string, error) {
	rec, err := r.c.Get(ctx, name)
	switch {
	case errors.Is(err, resolver.ErrReserved):
		mine, err := r.onceAlias(ctx, it.URN, name)
		if err != nil {
			return "", err
		}
		if mine {
			return "mine", nil
		}
		return "reserved to another record", nil
	case resolver.KindOf(err) == resolver.KindNotFound:
		return "", nil
	case err != nil:
		return "", err
	case sameKey(rec.URN, name):
		return "the name of a record", nil
	}
	return "an alias of " + rec.URN, nil
}

// onceAlias reports whether the history of the record named rec ever
// gave it name (or an equivalent) as an alias. A record with no history
// here (not yet written) never did.
func (r *remoteSink) onceAlias(ctx context.Context, rec, name string) (bool, error) {
	es, err := r.c.History(ctx, rec)
	if resolver.KindOf(err) == resolver.KindNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range es {
		var data struct {
			Aliases []string `json:"aliases"`
		}
		if json.Unmarshal(e.Data, &data) != nil {
			continue
		}
		if slices.ContainsFunc(data.Aliases, func(a string) bool { return sameKey(a, name) }) {
			return true, nil
		}
	}
	return false, nil
}

func sameKey(a, b string) bool {
	ua, err1 := urn.Parse(a)
	ub, err2 := urn.Parse(b)
	return err1 == nil && err2 == nil && ua.Key() == ub.Key()
}

// retry calls fn again, after a pause, while the server is unavailable:
// three tries over about three seconds.
func retry(ctx context.Context, fn func() error) {
	wait := 500 * time.Millisecond
	for try := 1; ; try++ {
		err := fn()
		if err == nil || resolver.KindOf(err) != resolver.KindUnavailable || try == 3 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// ---- export ----

func runExport(args []string, s *stdio) int {
	fs := newFlags("export", "export [--format jsonl|csv] [-o FILE]",
		"Writes every record, withdrawn ones too, in the order they were created,\n"+
			"to FILE (written whole, then renamed into place) or standard output.\n"+
			"CSV holds names and locations only: records with aliases, reserved names,\n"+
			"metadata or another redirect status lose them, and withdrawn records are left out\n"+
			"(you are told how many); JSON Lines holds everything and imports back\n"+
			"whole. Against a server this needs the admin token.\n"+formatsHelp+"\n"+targetHelp, s)
	t := addTarget(fs)
	format := fs.String("format", "", "jsonl or csv (default: from -o's name, else jsonl)")
	outPath := fs.String("o", "", "write to this file instead of standard output")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) > 0 {
		return usageErr(s, "export", "takes no arguments (use -o FILE)")
	}
	if err := t.resolve(fs); err != nil {
		return usageErr(s, "export", "%v", err)
	}
	f := recordio.JSONLines
	if *outPath != "" {
		f = recordio.FormatOf(*outPath)
	}
	if *format != "" {
		var err error
		if f, err = recordio.ParseFormat(*format); err != nil {
			return usageErr(s, "export", "--format: %v", err)
		}
	}
	return withDir(s, "export", t, false, func(ctx context.Context, d directory) int {
		out := s.out
		var file *os.File
		if *outPath != "" {
			var err error
			file, err = os.CreateTemp(filepath.Dir(*outPath), "."+filepath.Base(*outPath)+".*")
			if err != nil {
				fmt.Fprintf(s.err, "urikit export: %v\n", err)
				return exitInvalid
			}
			defer func() {
				file.Close()
				os.Remove(file.Name()) // gone already after the rename
			}()
			out = file
		}
		w := recordio.NewWriter(out, f)
		var n, partial, left int64
		err := d.EachRecord(ctx, func(r resolver.Record, reserved []string) error {
			whole, err := w.WriteReserved(r, reserved)
			if err != nil {
				return err
			}
			n++
			switch {
			case f == recordio.CSV && r.Status == resolver.Withdrawn:
				left++
			case !whole:
				partial++
			}
			return nil
		})
		if err == nil {
			err = w.Flush()
		}
		if err == nil && file != nil {
			if err = file.Sync(); err == nil {
				if err = file.Close(); err == nil {
					err = os.Rename(file.Name(), *outPath)
				}
			}
		}
		if err != nil {
			return fail(s, "export", t, err)
		}
		where := "standard output"
		if *outPath != "" {
			where = *outPath
		}
		fmt.Fprintf(s.err, "urikit export: %s as %s to %s\n", counted(n-left, "record", "records"), f, where)
		if left > 0 {
			fmt.Fprintf(s.err, "urikit export: %s left out: CSV cannot say a name is withdrawn (use --format jsonl)\n", counted(left, "withdrawn record", "withdrawn records"))
		}
		if partial > 0 {
			fmt.Fprintf(s.err, "urikit export: %s aliases, reserved names, metadata or redirect status: CSV cannot hold them (use --format jsonl)\n", counted(partial, "record lost its", "records lost their"))
		}
		return exitOK
	})
}
