# The two commands a new user needs are in README.md:
#   go run ./cmd/urikit parse URI     (the tool; nothing to install)
#   make test                         (the whole suite, as CI runs it)

.PHONY: test check unit fuzz bench build generate

test: check unit fuzz

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
	go test -count=1 ./...

# Every fuzz target briefly, seed corpora included.
fuzz:
	FUZZTIME=$${FUZZTIME:-5s} scripts/fuzz-smoke.sh

bench:
	go test -run='^$$' -bench=. -benchmem ./...

generate:
	go generate ./...
