package client

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/urikit/urikit/resolver"
)

// LogEntry is an entry of the public log (GET /api/v1/log): a history
// entry, without Data when Withheld (the entries about authorities,
// tokens, rules and the admin token).
type LogEntry struct {
	HistoryEntry
	Withheld bool `json:"withheld,omitempty"`
}

// LogHead is the history's last entry, by its number and hash.
type LogHead struct {
	Seq  int64  `json:"seq"`
	Hash []byte `json:"hash"`
}

// LogPage is one page of the public log.
type LogPage struct {
	Entries []LogEntry `json:"entries"`
	Next    *int64     `json:"next"` // nil on the last page
	Head    LogHead    `json:"head"`
}

// Log returns the entries of the directory's history after the entry
// after (0: from the first), at most limit (0: the server's default).
// Anyone may read it.
func (c *Client) Log(ctx context.Context, after int64, limit int) (LogPage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var p LogPage
	_, err := c.do(ctx, http.MethodGet, withQuery("/api/v1/log", q), nil, &p)
	return p, err
}

// LogChecker follows the public log entry by entry and checks what a
// reader can: that the entries are numbered from 1 without a gap, that
// each links to the one before (its Prev is that entry's Hash), that the
// hash of every entry shown with its data is that of its fields
// (HistoryEntry.Sound), and that only entries of the actions the server
// may withhold come without their data. The fields of a withheld entry
// are not checked: its hash covers its data, which a reader does not get. It also checks the heads a reader kept from
// earlier walks: the entry at a kept Seq must have the kept Hash, or the
// history before it was rewritten.
type LogChecker struct {
	kept     map[int64][]byte
	last     LogEntry
	Entries  int64 // entries checked
	Withheld int64 // of which without data
}

// NewLogChecker returns a checker that also holds the log to the heads
// kept.
func NewLogChecker(kept ...LogHead) *LogChecker {
	c := &LogChecker{kept: map[int64][]byte{}}
	for _, h := range kept {
		c.kept[h.Seq] = h.Hash
	}
	return c
}

// Check checks the next entry of the log, in order.
func (c *LogChecker) Check(e LogEntry) error {
	if want := c.last.Seq + 1; e.Seq != want {
		return fmt.Errorf("entry %d comes where entry %d should: the log has a gap or is out of order", e.Seq, want)
	}
	if !bytes.Equal(e.Prev, c.last.Hash) {
		return fmt.Errorf("entry %d does not link to entry %d: its prev is not that entry's hash (the history was changed there)", e.Seq, c.last.Seq)
	}
	if e.Withheld {
		// The server withholds only the entries of actions that are not
		// public, none of them about a record. An entry about a record
		// shown as withheld would escape the hash check: an edit that
		// turned a change to a record into such an entry is refused here.
		// What a withheld entry says cannot be checked from outside, and
		// urikit verify, with the store, checks it.
		if resolver.Action(e.Action).Public() || e.Record != 0 || strings.HasPrefix(strings.ToLower(e.Subject), "urn:") {
			return fmt.Errorf("entry %d (%s %s) comes without its data, but it is about a record, whose entries are public: the history was changed there", e.Seq, e.Action, e.Subject)
		}
		c.Withheld++
	} else if !e.Sound() {
		return fmt.Errorf("entry %d (%s %s): its hash is not that of its fields: it was changed after it was written", e.Seq, e.Action, e.Subject)
	}
	if h, ok := c.kept[e.Seq]; ok && !bytes.Equal(h, e.Hash) {
		return fmt.Errorf("entry %d has another hash than the head kept for it: the history up to it was rewritten", e.Seq)
	}
	c.last = e
	c.Entries++
	return nil
}

// Finish checks the end of the walk against the head the server gave:
// the last entry checked must be it, and every kept head must have been
// reached.
func (c *LogChecker) Finish(head LogHead) error {
	if head.Seq != c.last.Seq || !bytes.Equal(head.Hash, c.last.Hash) {
		return fmt.Errorf("the log ends at entry %d, but the server gives entry %d as its head", c.last.Seq, head.Seq)
	}
	for seq := range c.kept {
		if seq > c.last.Seq {
			return fmt.Errorf("the head kept at entry %d is past the end of the log (%d entries): the history lost entries", seq, c.last.Seq)
		}
	}
	return nil
}

// Last returns the last entry checked.
func (c *LogChecker) Last() LogEntry { return c.last }
