// Package jobs is a store's job queue (Queue): jobs are enqueued, leased
// by the background workers, completed, or failed with backoff until they
// are dead; people list, count and retry them. It also names the job types
// of the extraction pipeline (Extract, SessionExtract, ...). Document
// ingest names its own (core/documents).
//
// It sits below core: it may import storage and core/config, and never
// core (core enqueues extract jobs inside its write transaction with
// these type names; core/app builds the one Queue of a store, and the
// pipeline, ops, the workers and the edges use it).
package jobs
