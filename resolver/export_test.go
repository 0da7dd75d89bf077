package resolver

import "github.com/urikit/urikit/uri"

// PlayLocationRules makes s compute location keys as a build whose rules
// are version v, key, would: for tests of Migrate and Verify across a
// change of LocationKeyVersion, which this build has not had yet.
func (s *Service) PlayLocationRules(v int, key func(uri.URI) string) { s.loc = locationRules{v, key} }
