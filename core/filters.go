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

// PageQuery asks for one page of a list ordered newest first, by a
// cursor a page returned (storage.PageQuery).
type PageQuery = storage.PageQuery

// MemoryPage is one page of memories in list order, each with its cursor
// (Cursors[i] is Memories[i]'s), and, when asked for, how many memories
// the filter selects (Total; -1 when not counted).
type MemoryPage struct {
	Memories []*Memory `json:"memories"`
	Cursors  []string  `json:"cursors"`
	Total    int       `json:"total"`
}

// HistoryPage is one page of audit events in list order (newest first),
// each with its cursor, and when asked for, how many match (Total; -1
// when not counted).
type HistoryPage struct {
	History []*HistoryEntry `json:"history"`
	Cursors []string        `json:"cursors"`
	Total   int             `json:"total"`
}
