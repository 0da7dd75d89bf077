package urn

// The table of registered NIDs is generated from the IANA snapshot beside
// the repository (see shared/data/urn/README.md for its provenance).
//go:generate go run ./internal/gennid -in ../../shared/data/urn/iana-urn-namespaces.csv -out registry_gen.go
