package connstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"

	"github.com/cairnmem/cairn/storage"
)

// Connector is one row of connectors.
type Connector struct {
	ID, Provider, DisplayName string
	Config                    string // JSON object
	Cursor                    string // JSON object, "" before the first sync
	Status                    string // idle, syncing, error
	LastSyncAt                string
	LastError, LastErrorAt    string
	CreatedAt, UpdatedAt      string
}

// Connector statuses.
const (
	ConnectorIdle    = "idle"
	ConnectorSyncing = "syncing"
	ConnectorError   = "error"
)

const connectorColumns = `id, provider, display_name, config, COALESCE(cursor, ''), status, COALESCE(last_sync_at, ''),
	COALESCE(last_error, ''), COALESCE(last_error_at, ''), created_at, updated_at`

func scanConnector(r interface{ Scan(...any) error }) (*Connector, error) {
	var c Connector
	err := r.Scan(&c.ID, &c.Provider, &c.DisplayName, &c.Config, &c.Cursor, &c.Status, &c.LastSyncAt,
		&c.LastError, &c.LastErrorAt, &c.CreatedAt, &c.UpdatedAt)
	return &c, err
}

// InsertConnector stores a new connector.
func InsertConnector(ctx context.Context, q storage.Querier, c *Connector) error {
	_, err := q.ExecContext(ctx, `INSERT INTO connectors (id, provider, display_name, config, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, c.ID, c.Provider, c.DisplayName, c.Config, cmp.Or(c.Status, ConnectorIdle), c.CreatedAt, c.UpdatedAt)
	return err
}

// GetConnector returns connector id, or storage.ErrNotFound.
func GetConnector(ctx context.Context, q storage.Querier, id string) (*Connector, error) {
	c, err := scanConnector(q.QueryRowContext(ctx, `SELECT `+connectorColumns+` FROM connectors WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, storage.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ListConnectors returns every connector, oldest first.
func ListConnectors(ctx context.Context, q storage.Querier) ([]*Connector, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+connectorColumns+` FROM connectors ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Connector{}
	for rows.Next() {
		c, err := scanConnector(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetConnectorSyncing marks a sync started.
func SetConnectorSyncing(ctx context.Context, q storage.Querier, id, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE connectors SET status = 'syncing', updated_at = ? WHERE id = ?`, now, id)
	return err
}

// FinishConnectorSync records a finished sync: its cursor and, when
// syncErr is not empty, the error (status error), else status idle.
func FinishConnectorSync(ctx context.Context, q storage.Querier, id, cursor, syncErr, now string) error {
	if syncErr != "" {
		_, err := q.ExecContext(ctx, `UPDATE connectors SET status = 'error', cursor = COALESCE(NULLIF(?, ''), cursor),
			last_error = ?, last_error_at = ?, updated_at = ? WHERE id = ?`, cursor, syncErr, now, now, id)
		return err
	}
	_, err := q.ExecContext(ctx, `UPDATE connectors SET status = 'idle', cursor = ?, last_sync_at = ?, updated_at = ? WHERE id = ?`,
		cursor, now, now, id)
	return err
}

// ResetSyncingConnectors returns connectors left syncing by a process that
// stopped mid-sync to idle (at start).
func ResetSyncingConnectors(ctx context.Context, q storage.Querier, now string) error {
	_, err := q.ExecContext(ctx, `UPDATE connectors SET status = 'idle', updated_at = ? WHERE status = 'syncing'`, now)
	return err
}

// DeleteConnector removes a connector and its file rows.
func DeleteConnector(ctx context.Context, q storage.Querier, id string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM connectors WHERE id = ?`, id)
	return err
}

// ConnectorFile is what a connector knows of one file it ingested.
type ConnectorFile struct {
	Path       string
	Size       int64
	MTime      string
	Hash       string
	DocumentID string
}

// ConnectorFiles returns the files connector id ingested, by path.
func ConnectorFiles(ctx context.Context, q storage.Querier, id string) (map[string]*ConnectorFile, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, size, mtime, hash, document_id FROM connector_files WHERE connector_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*ConnectorFile{}
	for rows.Next() {
		var f ConnectorFile
		if err := rows.Scan(&f.Path, &f.Size, &f.MTime, &f.Hash, &f.DocumentID); err != nil {
			return nil, err
		}
		out[f.Path] = &f
	}
	return out, rows.Err()
}

// PutConnectorFile records (or replaces) what connector id ingested from
// one file.
func PutConnectorFile(ctx context.Context, q storage.Querier, id string, f *ConnectorFile) error {
	_, err := q.ExecContext(ctx, `INSERT INTO connector_files (connector_id, path, size, mtime, hash, document_id)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (connector_id, path) DO UPDATE SET
		size = excluded.size, mtime = excluded.mtime, hash = excluded.hash, document_id = excluded.document_id`,
		id, f.Path, f.Size, f.MTime, f.Hash, f.DocumentID)
	return err
}

// DeleteConnectorFile forgets one file of connector id.
func DeleteConnectorFile(ctx context.Context, q storage.Querier, id, path string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM connector_files WHERE connector_id = ? AND path = ?`, id, path)
	return err
}

// ConnectorErrors returns the connectors in error, most recent error
// first (diagnostics).
func ConnectorErrors(ctx context.Context, q storage.Querier) ([]*Connector, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+connectorColumns+` FROM connectors WHERE status = 'error' ORDER BY last_error_at DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Connector
	for rows.Next() {
		c, err := scanConnector(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
