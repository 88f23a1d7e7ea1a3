package wire

import "encoding/json"

// Connector statuses (connstore.Connector*).
const (
	ConnectorIdle    = "idle"
	ConnectorSyncing = "syncing"
	ConnectorError   = "error"
)

// Connector is a connector with its state, as the API answers it
// (core/connectors.Connector).
type Connector struct {
	ID          string          `json:"id"`
	Provider    string          `json:"provider"`
	DisplayName string          `json:"display_name"`
	Config      json.RawMessage `json:"config"`
	Cursor      json.RawMessage `json:"cursor,omitempty"`
	Status      string          `json:"status"`
	LastSyncAt  string          `json:"last_sync_at,omitempty"`
	LastError   string          `json:"last_error,omitempty"`
	LastErrorAt string          `json:"last_error_at,omitempty"`
	Files       int             `json:"files"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
}

// SyncResult is what one sync of a connector did
// (core/connectors.SyncResult).
type SyncResult struct {
	ConnectorID string   `json:"connector_id"`
	Seen        int      `json:"files_seen"`
	Added       int      `json:"added"`
	Changed     int      `json:"changed"`
	Removed     int      `json:"removed"`
	Unchanged   int      `json:"unchanged"`
	Skipped     int      `json:"skipped"`          // too large, not text, unreadable
	Errors      []string `json:"errors,omitempty"` // per file, a bounded number
	TookMS      int64    `json:"took_ms"`
}
