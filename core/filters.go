package core

import "github.com/cairnmem/cairn/storage"

// The filters of the memory and history reads. They are storage's query
// structs (as JobFilter is); these names let the code above the domain
// (core/client and its callers) build them without importing storage.
type (
	// MemoryFilter selects memories: Recall, List, Export and a batch
	// forget take one.
	MemoryFilter = storage.MemoryFilter
	// HistoryFilter selects audit events by exact fields.
	HistoryFilter = storage.HistoryFilter
	// HistorySearch is the History pane's filter: exact event and actor,
	// a loose memory id and free-text words.
	HistorySearch = storage.HistorySearch
)
