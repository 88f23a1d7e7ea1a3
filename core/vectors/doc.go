// Package vectors owns a store's vectors: the embedding provider (an
// Embedder, called outside any transaction, with its health and backoff),
// the in-memory vector index (loaded lazily, kept in step with writes by
// SyncVectors, calibrated in the background), the cache of query vectors,
// and the embedding of pending memories that the embedding tracker drives.
// Recall's vector leg is Search; Similar and Embeddings serve the API.
//
// It sits below core: it may import storage, core/vector, core/config and
// core/analytics, and never core (core, the subsystems and the edges
// import it; core/app builds the one Vectors of a store).
package vectors
