package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urikit/urikit/resolver"
	"github.com/urikit/urikit/resolver/client"
)

func init() {
	register(command{name: "log", summary: "read a resolver's public history and check its hash chain, as any reader can", run: runLog})
}

// logHeads is --head SEQ:HASH, repeated: heads kept from earlier walks.
type logHeads []client.LogHead

func (h *logHeads) String() string {
	parts := make([]string, len(*h))
	for i, x := range *h {
		parts[i] = formatHead(x)
	}
	return strings.Join(parts, " ")
}

func (h *logHeads) Set(v string) error {
	seq, hash, ok := strings.Cut(v, ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || err != nil || n < 1 {
		return fmt.Errorf("%q is not SEQ:HASH (an entry's number, a colon and its hash, as urikit log prints them)", v)
	}
	b, err := parseHash(hash)
	if err != nil {
		return fmt.Errorf("%q: the hash after the colon %v", v, err)
	}
	*h = append(*h, client.LogHead{Seq: n, Hash: b})
	return nil
}

// parseHash reads a SHA-256 in either form a user meets it in: hex, as
// urikit log and urikit verify print it and the web page shows it, or
// base64, as the API gives it. The lengths tell them apart: 64 hex digits
// (either case), 44 base64 characters (padding included); no string is
// both.
func parseHash(s string) ([]byte, error) {
	var b []byte
	var err error
	switch len(s) {
	case 2 * sha256.Size:
		if b, err = hex.DecodeString(s); err != nil {
			return nil, fmt.Errorf("has 64 characters but is not hex digits")
		}
	case base64.StdEncoding.EncodedLen(sha256.Size):
		if b, err = base64.StdEncoding.DecodeString(s); err != nil {
			return nil, fmt.Errorf("has 44 characters but is not base64")
		}
	default:
		return nil, fmt.Errorf("is not a SHA-256: 64 hex digits (as urikit log and urikit verify print it) or 44 base64 characters (as the API gives it), not %d characters", len(s))
	}
	return b, nil
}

// formatHead is SEQ:HASH with the hash in hex, the form of urikit
// verify's line and of the web page.
func formatHead(h client.LogHead) string {
	return strconv.FormatInt(h.Seq, 10) + ":" + hex.EncodeToString(h.Hash)
}

// maxLogRounds bounds the reads after the last page: a directory written
// to all the time moves its head while the walk reads, and each round
// reads what came meanwhile; behind a load balancer or with a read
// replica, a head can come from a store that has not yet replayed the
// entries already checked, and the walk waits logRoundWait for it.
const (
	maxLogRounds = 100
	logRoundWait = 100 * time.Millisecond
)

func runLog(args []string, s *stdio) int {
	fs := newFlags("log", "log --server URL [--head SEQ:HASH]... [--json] [--token T]",
		"Reads a running resolver's public history (GET /api/v1/log) from its first\n"+
			"entry to its head, as any reader can, and checks it: entries\n"+
			"numbered without gaps, each linked to the one before by its hash, and the\n"+
			"hash of every entry shown with its data recomputed. Entries about\n"+
			"authorities, tokens and rules come without their data: their links are\n"+
			"checked, their hashes cannot be. It prints the head, SEQ:HASH (the hash in\n"+
			"hex); keep it, and give it with --head on a later run, which then also\n"+
			"checks that the history still leads to it: a history rewritten before it\n"+
			"would not. --head takes the hash in hex (64 digits, as urikit log and\n"+
			"urikit verify print it) or base64 (44 characters, as the API gives it).\n"+
			"What an entry without data says is not checked: 'urikit verify', with the\n"+
			"store, checks that too, and the records against the history.\n\n"+
			"Options: --server URL (or "+envServer+"); --token, the admin token, only for a\n"+
			"server that keeps its history to the admin (serve --history-access admin).\n"+
			"Exit status: 0 the chain holds, 1 it does not or the server failed, 2 usage error.\n", s)
	server := fs.String("server", "", "a running urikit serve's base URL, e.g. https://resolver.example (or "+envServer+")")
	var heads logHeads
	fs.Var(&heads, "head", "SEQ:HASH of a head printed by an earlier run: the log must still lead to it (repeat)")
	token := fs.String("token", "", "a token to send, for a server that gives its history to the admin only (or "+envToken+")")
	asJSON := fs.Bool("json", false, "also print every entry, one JSON object a line, to standard output (the summary goes to standard error)")
	pos, st := parseArgs(fs, args, s)
	if st >= 0 {
		return st
	}
	if len(pos) > 0 {
		return usageErr(s, "log", "unexpected argument %q", pos[0])
	}
	if *server == "" {
		*server = os.Getenv(envServer)
	}
	if *server == "" {
		return usageErr(s, "log", "give the server with --server URL (or %s); on a data directory, use urikit verify", envServer)
	}
	ctx, stop := interruptible()
	defer stop()
	if *token == "" {
		*token = os.Getenv(envToken)
	}
	c := client.New(*server, *token)
	check := client.NewLogChecker(heads...)
	summary := s.out
	if *asJSON {
		summary = s.err
	}
	enc := json.NewEncoder(s.out)
	var head client.LogHead
	for rounds := 0; ; {
		page, err := c.Log(ctx, check.Last().Seq, 0)
		if err != nil {
			return logFailed(s, *server, *token != "", err)
		}
		for _, e := range page.Entries {
			if err := check.Check(e); err != nil {
				fmt.Fprintf(s.err, "urikit log: %s: %v\n", *server, err)
				return exitInvalid
			}
			if *asJSON {
				if err := enc.Encode(e); err != nil {
					return fail(s, "log", nil, err)
				}
			}
		}
		head = page.Head
		if page.Next != nil {
			continue
		}
		if check.Last().Seq != head.Seq && rounds < maxLogRounds {
			rounds++
			if check.Last().Seq > head.Seq {
				// A store behind the entries already checked answered.
				select {
				case <-ctx.Done():
					return fail(s, "log", nil, ctx.Err())
				case <-time.After(logRoundWait):
				}
			}
			continue // else entries were written while the walk read
		}
		break
	}
	if err := check.Finish(head); err != nil {
		fmt.Fprintf(s.err, "urikit log: %s: %v\n", *server, err)
		return exitInvalid
	}
	fmt.Fprintf(summary, "%s: %s checked (%s without data): every link holds", *server,
		plural(int(check.Entries), "entry", "entries"), plural(int(check.Withheld), "entry", "entries"))
	if len(heads) > 0 {
		fmt.Fprintf(summary, ", and the log still leads to the %s kept", plural(len(heads), "head", "heads"))
	}
	fmt.Fprintf(summary, "\nhead: %s\n", formatHead(head))
	return exitOK
}

// logFailed reports a server's refusal to give its log in the CLI's terms:
// which server, and what to give it.
func logFailed(s *stdio, server string, withToken bool, err error) int {
	switch resolver.KindOf(err) {
	case resolver.KindUnauthorized:
		if withToken {
			fmt.Fprintf(s.err, "urikit log: %s does not know the token given (--token or %s): its history is for its admin token only\n", server, envToken)
		} else {
			fmt.Fprintf(s.err, "urikit log: %s keeps its history to the admin (serve --history-access admin): give the admin token with --token or %s\n", server, envToken)
		}
		return exitInvalid
	case resolver.KindForbidden:
		fmt.Fprintf(s.err, "urikit log: %s keeps its history to the admin, and the token given (--token or %s) is not the admin's\n", server, envToken)
		return exitInvalid
	}
	if errors.Is(err, client.ErrNoRoute) {
		fmt.Fprintf(s.err, "urikit log: %v%s\n", err, serverHint(server))
		return exitInvalid
	}
	return fail(s, "log", nil, err)
}
