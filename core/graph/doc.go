// Package graph answers questions about cairn's knowledge graph: the
// entities the pipeline found, their relations, and the memories that
// mention them, as the API and the TUI show them. It only reads (the
// pipeline writes the graph; recall's graph boost lives in core).
//
// graph imports core (the memory view and errors) and storage; only the
// edges (core/app, core/httpapi, core/client) import it.
package graph
