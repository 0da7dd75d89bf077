// Package sqlite is urikit's embedded resolver.Store: the whole directory in
// one SQLite database file (urikit.db) in the data directory, through
// modernc.org/sqlite, a pure-Go SQLite (no cgo, nothing to install).
//
// Durability and concurrency:
//
//   - WAL mode: readers read the last committed snapshot and never wait for
//     the writer, nor it for them.
//   - synchronous=FULL: every commit syncs the WAL, so a write Update
//     acknowledged survives a power failure or an OS crash. With NORMAL,
//     WAL mode syncs only at checkpoints: the file stays consistent, but
//     the last commits acknowledged before such a crash can be lost.
//   - One writer connection; Update runs in BEGIN IMMEDIATE, holding the
//     database's write lock from its first statement, which serializes the
//     history's appends between threads and processes alike. Readers are a
//     pool of query_only connections.
//   - Another process on the same file (urikit import --data while a server
//     runs) is safe: SQLite's file locks keep writers apart, and a statement
//     waits at most Options.BusyTimeout for the lock before failing with
//     resolver.ErrUnavailable. Options.Exclusive lets urikit serve refuse to
//     run beside another server on the same directory. Changed and Watch
//     tell a server that another process wrote, so that it can drop its
//     cached lookups.
//
// Layout: records keep their lookup columns plus one compact binary body
// (aliases, locations, metadata; codec.go), so a lookup is one indexed
// query and a cheap decode. Every key a record ever had is a row of keys,
// whose primary key is the unique index behind never-reuse. The history's
// Data is a BLOB, kept byte for byte; times are Unix microseconds.
//
// The schema is versioned (table schema_version; migrations in schema.go,
// each in its own transaction) and brought up to date by Open and Migrate.
// A file a newer urikit migrated further is refused rather than guessed at.
package sqlite
