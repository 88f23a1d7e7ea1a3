// Package docstore holds the SQL of documents: the documents table and
// its statuses, a document's chunks and their links to memories, the
// ingest job's enqueueing, the orphaned documents a restart fails, and
// the stored URLs cleaned of credentials at open. core/documents runs it.
//
// It is storage's, apart only because only documents need it: it runs on
// storage's Querier, and storage never imports it.
package docstore
