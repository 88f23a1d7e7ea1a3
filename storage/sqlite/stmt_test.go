package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage/sqlite"
)

// TestBackgroundReadsHaveTheirOwnConnection checks that a read marked
// BackgroundReads runs while every connection of the request pool is
// taken, and that an unmarked one waits for the pool.
func TestBackgroundReadsHaveTheirOwnConnection(t *testing.T) {
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "b.db"), NoBackup: true, ReadConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// An open result set holds the pool's only connection.
	rows, err := db.Reader().QueryContext(context.Background(), `SELECT 1 UNION ALL SELECT 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var n int
	if err := db.Reader().QueryRowContext(sqlite.BackgroundReads(ctx), `SELECT count(*) FROM memories`).Scan(&n); err != nil {
		t.Fatalf("background read while the pool is taken: %v", err)
	}
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request read did not wait for the pool: %v", err)
	}
}
