// Package resolver is the domain of urikit's URN resolver: the records a
// directory keeps, the naming authorities that own parts of the name space,
// the delegation rules, the append-only history, and the rules that decide
// who may do what (Service). It asks a Store for data and nothing else, and
// imports no database or HTTP package: resolver/sqlite and resolver/postgres
// implement Store, resolver/httpapi serves Service over HTTP.
//
// The invariants the seeds and RFCs ask of a URN directory, and where each
// is kept:
//
//   - Names are never reused (the 1993 URN draft, guideline 2): every name
//     and alias a record ever had stays in the store under its equivalence
//     key, so a withdrawn name, or an alias dropped from a record, can never
//     be given to another record. The store's unique index on the key
//     enforces it, across processes and machines.
//   - Lexically equivalent names give identical results (RFC 2169 §2, RFC
//     8141 §3.1), and so do names equivalent under their namespace's own
//     rules: records are found by urn.URN.Key, never by the spelling.
//   - An authority changes only names under its own prefixes; the admin
//     manages authorities and rules and writes no names.
//   - Every change is one transaction that writes the data and appends one
//     Entry to the directory's history, each entry carrying the hash of the
//     one before (Chain), so that a rewritten history is detected.
package resolver
