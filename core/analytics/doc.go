// Package analytics keeps cairn's in-memory usage counters, the ring of
// recent errors with their stage and code, provider health, and latency
// rings with percentiles. Nothing in it touches the store.
package analytics
