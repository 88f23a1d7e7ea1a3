// Package workers holds cairn's background loops: extraction, documents,
// the embedding tracker, retention and maintenance. A worker only
// schedules: the operation it runs is a function of core or of a subsystem
// built on it (core/pipeline, core/documents, core/ops) that the API and
// the TUI can call too. Model providers live in the subpackages
// (workers/llm, workers/embedding).
package workers
