// Package storage owns cairn's SQLite database and nothing above it: opening
// the file (WAL, pragmas, one writer connection and a pool of readers), the
// numbered migrations embedded in the binary, the process lock that lets only
// one cairn serve a database, and the SQL that reads and writes rows.
//
// Every write goes through [DB.WriteTx], which runs on the single writer
// connection inside BEGIN IMMEDIATE. Callers keep those transactions short and
// never make network or model calls inside them.
package storage
