// Package workers holds cairn's background loops. A worker only schedules:
// the operation it runs is a function in core that the API and the TUI can
// call too. Model providers live in the subpackages (workers/embedding).
package workers
