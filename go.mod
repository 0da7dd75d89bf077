module github.com/urikit/urikit

go 1.22

require golang.org/x/net v0.35.0

require golang.org/x/text v0.22.0 // indirect
