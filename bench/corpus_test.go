package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sharedDir is ../shared beside the checkout (the URL lists, the seeds).
const sharedDir = "../../shared"

var (
	listsMu sync.Mutex
	lists   = map[string][]string{}
)

// urlList reads a list of ../shared/data/urls once, as the uri benchmarks
// do: BOM stripped, split on LF, a final empty line dropped.
func urlList(tb testing.TB, file string) []string {
	tb.Helper()
	listsMu.Lock()
	defer listsMu.Unlock()
	if l, ok := lists[file]; ok {
		return l
	}
	data, err := os.ReadFile(filepath.Join(sharedDir, "data", "urls", file))
	if err != nil {
		tb.Skipf("benchmark data not available: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	l := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	lists[file] = l
	return l
}

var urlLists = []struct{ name, file string }{
	{"kasztp", "kasztp.txt"},
	{"node_files", "node_files.txt"},
	{"isaacs_files", "isaacs_files.txt"},
}

// Sinks keep the compiler from discarding the work.
var (
	sinkInt int
	sinkStr string
)

func bytesOf(lines []string) (n int64) {
	for _, l := range lines {
		n += int64(len(l))
	}
	return n
}
