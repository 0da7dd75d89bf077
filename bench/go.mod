module github.com/urikit/urikit/bench

go 1.25.0

require (
	github.com/contomap/iri v0.2.1
	github.com/fredbi/uri v1.1.1
	github.com/leodido/go-urn v1.5.0
	github.com/urikit/urikit v0.0.0
	mvdan.cc/xurls/v2 v2.6.0
)

require (
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace github.com/urikit/urikit => ../
