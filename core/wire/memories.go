package wire

import "encoding/json"

// Remembered is the answer to a remember: one memory (ID), or the chunks
// long content was split into (Chunked, IDs, GroupID).
type Remembered struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Tags       []string `json:"tags"`
	Pinned     bool     `json:"pinned"`
	Importance float64  `json:"importance"`
	Embedded   bool     `json:"embedded"`
	Deduped    bool     `json:"deduped"`
	Chunked    bool     `json:"chunked"`
	IDs        []string `json:"ids"`
	GroupID    string   `json:"group_id"`
	Superseded []string `json:"superseded"`
	// Raw is the answer as the API sent it (or, in process, as it would).
	Raw json.RawMessage `json:"-"`
}

// MemoryStats counts live memories, those with an embedding, those with
// importance ≥ 0.9, and tombstones (storage.MemoryStats).
type MemoryStats struct {
	Total          int `json:"total"`
	WithEmbeddings int `json:"withEmbeddings"`
	Critical       int `json:"critical"`
	Deleted        int `json:"deleted"`
}

// Status is the part of GET /api/status clients show. In process the
// client fills what is cheap to count: the totals of Memories (not
// WithEmbeddings or Critical), the queue, Counts and the configured
// embedding provider.
type Status struct {
	AuthMode string         `json:"authMode"`
	Pipeline PipelineStatus `json:"pipeline"`
	Memories MemoryStats    `json:"memories"`
	// Queue counts jobs by status; nil when the API reports no queue.
	Queue map[string]int `json:"queue"`
	// Counts are the overview's cheap counters.
	Counts    StatusCounts     `json:"counts"`
	Embedding EmbeddingSummary `json:"embedding"`
}

// PipelineStatus is the pipeline part of Status.
type PipelineStatus struct {
	Mode string `json:"mode"` // disabled, shadow, controlled-write, frozen
}

// StatusCounts are the counters of GET /api/status.
type StatusCounts struct {
	Memories         int64 `json:"memories"`
	Deleted          int64 `json:"deleted"`
	PendingProposals int64 `json:"pendingProposals"`
}

// EmbeddingSummary is the embedding part of Status: the provider ("none"
// over the API when no embedder runs; in process the configured one).
type EmbeddingSummary struct {
	Provider string `json:"provider"`
}
