// Package bench measures cairn as users run it: it starts servers of the
// real binary on throwaway homes, loads benchmark data (LoCoMo
// conversations, JSONL corpora, the built-in coding sessions), drives them
// through the API and the hook shim, and reports retrieval quality (IR
// metrics), injection figures, load and latency (`cairn bench …` prints
// them).
//
// bench is a tool at the edge: it may import core's types and
// core/client; no domain package imports it.
package bench
