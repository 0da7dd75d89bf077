module github.com/urikit/urikit/bench

go 1.24.0

require (
	github.com/fredbi/uri v1.1.1
	github.com/leodido/go-urn v1.5.0
	github.com/urikit/urikit v0.0.0
	mvdan.cc/xurls/v2 v2.6.0
)

require (
	golang.org/x/net v0.35.0 // indirect
	golang.org/x/text v0.22.0 // indirect
)

replace github.com/urikit/urikit => ../
