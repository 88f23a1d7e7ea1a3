package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// A long write transaction in another database of the same PostgreSQL
// server (another application's batch job, a session left idle in a
// transaction) does not hold back cairn's change feed: transaction ids and
// snapshots are the server's, but only this database's transactions can
// write its change log.
func TestFeedIgnoresOtherDatabasesTransactions(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	ctx := context.Background()
	other, err := pgx.Connect(ctx, c.URL(c.Database(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, `CREATE TABLE batch (n int)`); err != nil {
		t.Fatal(err)
	}
	long, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Rollback(ctx)
	// An id assigned: the transaction is below every snapshot's xmin now.
	if _, err := long.Exec(ctx, `INSERT INTO batch VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	writer, reader := open(t, c.URL(name)), open(t, c.URL(name))
	f, err := reader.Follow(ctx, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	var rid int64
	if err := writer.WriteTx(ctx, func(tx *Tx) error {
		rid = insertMemory(t, tx, "while another database works", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for f.PendingMemoryChanges() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the change of rid %d is held back by another database's open transaction (cursor %s, last error %v)", rid, f.Cursor(), f.Err())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := f.TakeMemoryChanges(); len(got) != 1 || got[0] != rid {
		t.Fatalf("took %v, want [%d]", got, rid)
	}
}
