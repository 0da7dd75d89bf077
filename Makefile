# The two commands a new user needs are in README.md:
#   go run ./cmd/urikit parse URI     (the tool; nothing to install)
#   make test                         (the whole suite, as CI runs it)

.PHONY: test check unit fuzz bench build generate

# Fuzzing first, so that the run closes with the tests' "N passed, N failed".
test: check fuzz unit

build:
	go build -o urikit ./cmd/urikit

# gofmt, go vet and staticcheck clean; go.mod and go.sum exactly what the
# code needs (go mod tidy -diff), for this module and the bench module.
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	go mod tidy -diff
	go run $(STATICCHECK) ./...
	cd bench && go vet ./... && go mod tidy -diff && go run $(STATICCHECK) ./...

# Unit, example and conformance tests (the project's vectors always; the
# public corpora of ../shared when present), with -race where there is
# concurrent code; the closing line counts passed, failed and skipped.
unit:
	scripts/unit.sh

# Every fuzz target briefly, seed corpora included.
fuzz:
	scripts/fuzz-smoke.sh

bench:
	go test -run='^$$' -bench=. -benchmem ./...
	cd bench && go test -run='^$$' -bench=. -benchmem ./...

generate:
	go generate ./...
