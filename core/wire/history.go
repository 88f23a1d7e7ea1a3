package wire

// HistoryEntry is one event of a memory's audit trail (core.HistoryEntry).
type HistoryEntry struct {
	ID         string         `json:"id"`
	MemoryID   string         `json:"memoryId"`
	Event      string         `json:"event"`
	OldContent *string        `json:"oldContent"`
	NewContent *string        `json:"newContent"`
	ChangedBy  string         `json:"changedBy"`
	ActorType  string         `json:"actorType"`
	Reason     string         `json:"reason,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	SessionID  string         `json:"sessionId,omitempty"`
	RequestID  string         `json:"requestId,omitempty"`
	CreatedAt  string         `json:"createdAt"`
}
