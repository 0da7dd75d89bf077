module github.com/urikit/urikit

go 1.26.0

require (
	github.com/contomap/iri v0.2.1 // indirect
	github.com/fredbi/uri v1.1.1 // indirect
	github.com/leodido/go-urn v1.5.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	mvdan.cc/xurls/v2 v2.6.0 // indirect
)
