package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cairnmem/cairn/storage/sqlite"
)

// Concurrent writes share commits; one that fails rolls back alone, one
// that panics panics in its caller, and the rest are all stored.
func TestWriteTxGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "w.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var wg sync.WaitGroup
	errs := make([]error, 200)
	panics := make([]any, 200)
	for i := range 200 {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			errs[i] = db.WriteTx(ctx, func(tx *sqlite.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO kv VALUES (?, 'x')`, fmt.Sprint(i)); err != nil {
					return err
				}
				switch i % 10 {
				case 3:
					return boom // its insert must be rolled back
				case 7:
					if i == 7 {
						panic("seven")
					}
				}
				return nil
			})
		})
	}
	wg.Wait()
	stored := 0
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kv`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 179 { // 200 − 20 that failed − 1 that panicked
		t.Fatalf("%d rows stored, want 179", stored)
	}
	for i, err := range errs {
		switch {
		case i == 7:
			if panics[i] != "seven" {
				t.Fatalf("write 7: panic %v, want it re-raised in its caller", panics[i])
			}
		case i%10 == 3:
			if !errors.Is(err, boom) {
				t.Fatalf("write %d: %v", i, err)
			}
		case err != nil || panics[i] != nil:
			t.Fatalf("write %d: %v %v", i, err, panics[i])
		}
	}
	// A caller whose context ended before its turn writes nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.WriteTx(cctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`INSERT INTO kv VALUES ('late', 'x')`)
		return err
	}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write: %v", err)
	}
	var late int
	_ = db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kv WHERE k = 'late'`).Scan(&late)
	if late != 0 {
		t.Fatal("a cancelled write was stored")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error { return nil }); err == nil {
		t.Fatal("write after close succeeded")
	}
}
