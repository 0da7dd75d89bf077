package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformanceRunner runs the conformance runner of ../shared (run.py)
// against the built urikit binary, over the public corpora and the
// project's own vectors: the protocol end to end, through a pipe. It is an
// extra: the same vectors run in plain go test without python3 or ../shared
// (internal/batch's TestConformance), so this one is skipped when either
// is missing (CI has both and fails without them).
func TestConformanceRunner(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "conformance")
	public, _ := filepath.Glob(filepath.Join(shared, "*.jsonl"))
	if len(public) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no conformance corpus at %s: CI needs ../shared beside the checkout", shared)
		}
		t.Skipf("no conformance corpus at %s (clone ../shared beside the repository)", shared)
	}
	// RFC 3987's examples sit in a folder of their own (iri/README.md there).
	iriCorpus, _ := filepath.Glob(filepath.Join(shared, "iri", "*.jsonl"))
	public = append(public, iriCorpus...)
	own, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*.jsonl"))
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is needed to run the conformance runner")
		}
		t.Skip("python3 is not installed: run.py not run (the vectors ran in internal/batch)")
	}
	bin := filepath.Join(t.TempDir(), "urikit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, corpus := range append(public, own...) {
		t.Run(filepath.Base(corpus), func(t *testing.T) {
			cmd := exec.Command(python, filepath.Join(shared, "run.py"), "--cmd", bin+" batch", corpus)
			out, err := cmd.CombinedOutput()
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			t.Log(lines[len(lines)-1])
			if err != nil {
				t.Fatalf("%s: %v\n%s", corpus, err, out)
			}
		})
	}
}
