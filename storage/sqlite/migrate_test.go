package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// migrationsBefore is every migration, and those older than version:
// a store written before version, to test its upgrade.
func migrationsBefore(t *testing.T, version int) (before, all []Migration) {
	t.Helper()
	all, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.Version < version {
			before = append(before, m)
		}
	}
	return before, all
}

func openTemp(t *testing.T, path string, ms []Migration) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Path: path, Migrations: ms})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return db
}

func mig(v int, name, sql string) Migration {
	return Migration{Version: v, Name: name, SQL: sql, Checksum: name + sql}
}

func TestMigrationsFreshIdempotentBackupAndChecksum(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	m1 := mig(1, "one", "CREATE TABLE a (x INTEGER);")
	m2 := mig(2, "two", "CREATE TABLE b (y INTEGER);")

	db := openTemp(t, path, []Migration{m1})
	db.Close()
	if b, _ := filepath.Glob(path + ".bak-*"); len(b) != 0 {
		t.Fatalf("a fresh database needs no backup, got %v", b)
	}

	// Re-opening with nothing new is a no-op: no backup, no error.
	db = openTemp(t, path, []Migration{m1})
	db.WriteTx(ctx, func(tx *Tx) error { _, err := tx.Exec(`INSERT INTO a VALUES (42)`); return err })
	db.Close()
	if b, _ := filepath.Glob(path + ".bak-*"); len(b) != 0 {
		t.Fatalf("no pending migration should not back up, got %v", b)
	}

	// A new migration on an existing file takes a backup first.
	db = openTemp(t, path, []Migration{m1, m2})
	var n int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("schema_migrations rows = %d, %v", n, err)
	}
	db.Close()
	backups, _ := filepath.Glob(path + ".bak-v1-*")
	if len(backups) != 1 {
		t.Fatalf("want one backup of schema v1, got %v", backups)
	}
	bak := openTemp(t, backups[0], []Migration{m1})
	if err := bak.Reader().QueryRow(`SELECT x FROM a`).Scan(&n); err != nil || n != 42 {
		t.Fatalf("backup does not hold the data: %d %v", n, err)
	}
	bak.Close()

	// A migration edited after it was applied is refused.
	edited := m1
	edited.Checksum = "changed"
	if _, err := Open(ctx, Options{Path: path, Migrations: []Migration{edited, m2}}); !errors.Is(err, ErrBadChecksum) {
		t.Fatalf("edited migration: got %v, want ErrBadChecksum", err)
	}
	// A database from a newer cairn is refused with a clear message.
	if _, err := Open(ctx, Options{Path: path, Migrations: []Migration{m1}}); !errors.Is(err, ErrSchemaNewer) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("newer schema: got %v", err)
	}
}

func TestFailedMigrationRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	bad := mig(1, "bad", "CREATE TABLE ok (x INTEGER); CREATE TABLE broken (;")
	if _, err := Open(context.Background(), Options{Path: path, Migrations: []Migration{bad}}); err == nil {
		t.Fatal("broken migration should fail")
	}
	good := mig(1, "good", "CREATE TABLE ok (x INTEGER);")
	db := openTemp(t, path, []Migration{good}) // nothing of the failed attempt remains
	db.Close()
}

func TestWriteTxRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "r.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	boom := errors.New("boom")
	err = db.WriteTx(ctx, func(tx *Tx) error {
		tx.Exec(`INSERT INTO memory_history (id, memory_id, event, changed_by, created_at) VALUES ('h', 'm', 'created', 't', 'now')`)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	var n int
	db.Reader().QueryRow(`SELECT count(*) FROM memory_history`).Scan(&n)
	if n != 0 {
		t.Fatal("the failed transaction was committed")
	}
}

func TestLockIsExclusiveAndNamesTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.db")
	l, err := AcquireLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetAddr("127.0.0.1:3850"); err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(path)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	if le.Holder.PID != os.Getpid() || le.Holder.Addr != "127.0.0.1:3850" {
		t.Fatalf("holder = %+v", le.Holder)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:3850") {
		t.Fatalf("message does not say where the holder serves: %v", err)
	}
	if _, held := HeldByOther(path); !held {
		t.Fatal("HeldByOther = false while locked")
	}
	l.Release()
	l2, err := AcquireLock(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
}

func TestOpenRefusesMemoryAndBadOptions(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Options{Path: ":memory:"}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf(":memory: got %v", err)
	}
	if _, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "x.db"), Synchronous: "off"}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("synchronous=off got %v", err)
	}
}
