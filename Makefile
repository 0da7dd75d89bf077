# The two commands a new user needs are in README.md:
#   go run ./cmd/urikit parse URI     (the tool; nothing to install)
#   make test                         (the whole suite, as CI runs it)

.PHONY: test check unit fuzz bench build generate

# Fuzzing first, so that the run closes with the tests' "N passed, N failed".
test: check fuzz unit

build:
	go build -o urikit ./cmd/urikit

# gofmt and go vet must be clean.
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...

# Unit, example and conformance tests (the conformance test runs
# ../shared/conformance/run.py against `urikit batch`).
unit:
	scripts/unit.sh

# Every fuzz target briefly, seed corpora included.
fuzz:
	scripts/fuzz-smoke.sh

bench:
	go test -run='^$$' -bench=. -benchmem ./...

generate:
	go generate ./...
