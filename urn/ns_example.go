package urn

// example is the namespace for documentation (RFC 6963): any NSS, and no
// rules beyond RFC 8141's (§3.10 of RFC 6963).
type example struct{}

func init() { register(example{}) }

func (example) NID() string                          { return "example" }
func (example) Reference() string                    { return "RFC 6963" }
func (example) Rule() string                         { return "no rules beyond RFC 8141 §3.1" }
func (example) Validate(string) error                { return nil }
func (example) Normalize(nss string) (string, error) { return nss, nil }
