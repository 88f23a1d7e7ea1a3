// Package documents ingests documents into cairn: text or a fetched URL is
// stored, chunked, embedded outside any transaction and written chunk by
// chunk through the Service's write path as memories linked to the
// document; deleting a document forgets its chunks. One Documents serves a
// Service; core/app builds it.
package documents
