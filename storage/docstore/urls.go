package docstore

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// DocumentURL is what a document row says of where it came from: its
// source URL and its error (which may name the URL).
type DocumentURL struct {
	ID, SourceURL, Error string
}

// DocumentURLs returns the id, source URL and error of every document that
// has either.
func DocumentURLs(ctx context.Context, q storage.Querier) ([]DocumentURL, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, COALESCE(source_url, ''), COALESCE(error, '') FROM documents
		WHERE COALESCE(source_url, '') != '' OR COALESCE(error, '') != '' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("document urls: %w", err)
	}
	defer rows.Close()
	var out []DocumentURL
	for rows.Next() {
		var d DocumentURL
		if err := rows.Scan(&d.ID, &d.SourceURL, &d.Error); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SetDocumentURL rewrites a document's source URL and error.
func SetDocumentURL(ctx context.Context, q storage.Querier, d DocumentURL) error {
	_, err := q.ExecContext(ctx, `UPDATE documents SET source_url = ?, error = ? WHERE id = ?`,
		nullable(d.SourceURL), nullable(d.Error), d.ID)
	if err != nil {
		return fmt.Errorf("document url: %w", err)
	}
	return nil
}
