// Package connstore holds the SQL of connectors: the connectors table
// and its sync statuses, and each connector's files (path, hash, the
// document each became). core/connectors runs it.
//
// It is storage's, apart only because only connectors need it: it runs on
// storage's Querier, and storage never imports it.
package connstore
