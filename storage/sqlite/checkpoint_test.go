package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A commit that fills the WAL past the checkpoint threshold does not
// checkpoint itself (its caller, and every write queued behind it, would
// wait for the copy and the file sync): it wakes the background
// checkpointer, which copies the whole WAL back on its own connection.
// Close still leaves an empty WAL.
func TestCheckpointsOffTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	db, err := Open(ctx, Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	k := db.changes.ckpt
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE blobs (b BLOB)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	inlineBefore := k.inline.Load()
	// About 1,500 pages in one commit: past walAutoCheckpoint.
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1500)
			INSERT INTO blobs SELECT randomblob(3000) FROM n`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := k.inline.Load() - inlineBefore; n != 0 {
		t.Fatalf("the commit checkpointed inline (%d times): the writer waited for the copy", n)
	}
	for k.background.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if log, copied := k.logFrames.Load(), k.copied.Load(); log < walAutoCheckpoint || copied != log {
		t.Fatalf("the background checkpoint copied %d of %d WAL frames, want all of at least %d", copied, log, walAutoCheckpoint)
	}
	var n int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM blobs`).Scan(&n); err != nil || n != 1500 {
		t.Fatalf("read back %d rows (%v), want 1500", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() != 0 {
		t.Fatalf("the WAL holds %d bytes after Close, want none", st.Size())
	}
}

// BenchmarkCommitTail is a sequential writer's commits, each a row of
// about a kilobyte with an index entry (a remember's shape), with the WAL
// checkpointed inline by the commit that fills it (SQLite's way, before)
// and in the background: p50, p99 and the slowest commit.
//
//	go test -run '^$' -bench BenchmarkCommitTail -benchtime 5000x -count 3 ./storage/sqlite/
func BenchmarkCommitTail(b *testing.B) {
	for _, mode := range []string{"inline", "background"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "t.db"), NoBackup: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if mode == "inline" {
				db.changes.ckpt.started.Store(false) // the hook checkpoints in the commit
			}
			if err := db.WriteTx(ctx, func(tx *Tx) error {
				if _, err := tx.ExecContext(ctx, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, h TEXT)`); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `CREATE INDEX notes_h ON notes(h)`)
				return err
			}); err != nil {
				b.Fatal(err)
			}
			body := strings.Repeat("a note about the deploy pipeline and its cache; ", 20)
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				i++
				t0 := time.Now()
				if err := db.WriteTx(ctx, func(tx *Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO notes (body, h) VALUES (?, ?)`, body, fmt.Sprintf("%x", i*2654435761))
					return err
				}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			ms := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			b.ReportMetric(ms(1), "max-ms")
			b.ReportMetric(float64(db.changes.ckpt.inline.Load()), "inline-checkpoints")
		})
	}
}

// The WAL stays bounded while cairn serves: writes never pause and
// readers overlap, so at every moment some reader holds a snapshot (as
// recalls, the workers' reads and the TUI's do). A PASSIVE checkpoint
// copies every frame back, but SQLite starts the WAL over only at a
// moment no reader uses it, which such a load never leaves: without
// more, the WAL grew with every commit. Each reader here holds its
// snapshot a few milliseconds, a recall's length.
func TestWALBoundedWhileReadersHoldSnapshots(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	db, err := Open(ctx, Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, h TEXT UNIQUE)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var reads atomic.Int64
	for r := range 3 {
		readers.Go(func() {
			time.Sleep(time.Duration(r) * time.Millisecond) // staggered: the snapshots overlap
			for {
				select {
				case <-stop:
					return
				default:
				}
				tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
				if err != nil {
					t.Error(err)
					return
				}
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil {
					t.Error(err)
				}
				time.Sleep(3 * time.Millisecond)
				_ = tx.Rollback()
				reads.Add(1)
			}
		})
	}
	body := strings.Repeat("a note about the deploy pipeline and its cache; ", 70)
	var most int64
	const commits = 3000 // about 50 MB of WAL frames
	for i := range commits {
		if err := db.WriteTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO notes (body, h) VALUES (?, ?)`, body, fmt.Sprintf("%x", i*2654435761))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path + "-wal"); err == nil {
			most = max(most, st.Size())
		}
	}
	close(stop)
	readers.Wait()
	if reads.Load() < 10 {
		t.Fatalf("only %d reads ran beside the writes", reads.Load())
	}
	if most > walBoundTest {
		t.Fatalf("the WAL reached %.1f MiB over %d commits while readers held snapshots, want at most %d MiB",
			float64(most)/(1<<20), commits, walBoundTest>>20)
	}
	k := db.changes.ckpt
	t.Logf("largest WAL %.1f MiB; %d reads; %d restarts, %d gave up", float64(most)/(1<<20), reads.Load(), k.restarted.Load(), k.restartBusy.Load())

	// Once the writes stop, the WAL is emptied.
	deadline := time.Now().Add(4 * walIdle)
	for {
		st, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the WAL still holds %d bytes %v after the last commit", st.Size(), 4*walIdle)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// walBoundTest is the bound the test holds the WAL to: a few times what
// makes the writer restart it (walRestartAt thresholds of 4 MiB), for the
// restarts a reader the machine left unscheduled makes give up. Without
// the restarts it reached 73 MiB.
const walBoundTest = 24 << 20
