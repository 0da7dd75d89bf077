// Package federate finds where to send a request for a name the directory
// holds no record of: to another resolver named by a delegation rule (RFC
// 2276), or to one found by DDDS discovery in the DNS (RFC 3401–3405). It
// implements resolver.Delegator; the HTTP layer asks it only after the
// name's own record is missing, and redirects to what it returns. Nothing
// here fetches anything for a caller: the only traffic is DNS look-ups, each
// one time-limited.
//
// The order is the issue's: a name's own record (the HTTP layer), then the
// delegation rules (longest canonical prefix wins), then DDDS.
//
// A redirect to another resolver names the service as RFC 2169 (THTTP)
// names it where it has a name (I2L goes as N2L), carries the name as
// written, and counts the hop in the URN's r-component ("?+hops=N", RFC 8141
// §2.3.1 reserves r-components for resolvers and §3.1 makes equivalence
// ignore them), so that a loop between resolvers is detected by the hop
// limit instead of followed for ever.
package federate
