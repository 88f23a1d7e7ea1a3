package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/sqlite"
)

// damage writes garbage over pages first..last (4 KiB pages) of a closed
// database file.
func damage(t *testing.T, path string, first, last int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef garbage ", 4096/14+1))[:4096]
	for p := first; p <= last; p++ {
		if _, err := f.WriteAt(junk, int64(p-1)*4096); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenRefusesDamagedFile: a file with garbage over some pages (or
// over its header) is refused at open with an error that says what is
// wrong and how to recover, rather than served while reads fail.
func TestOpenRefusesDamagedFile(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		first, last int // pages; negative counts from the end
	}{
		// Data pages at the end: opening reads only the header and the
		// schema, so only the integrity check finds these.
		{"data pages", -30, -10},
		{"header page", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := buildStore(t, 600)
			st, _ := os.Stat(path)
			pages := int(st.Size() / 4096)
			if pages < 100 {
				t.Fatalf("fixture too small: %d pages", pages)
			}
			first, last := c.first, c.last
			if first < 0 {
				first, last = pages+first, pages+last
			}
			damage(t, path, first, last)
			db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
			if err == nil {
				db.Close()
				t.Fatal("a damaged file was opened")
			}
			if !errors.Is(err, sqlite.ErrCorrupt) || sqlite.FaultOf(err) != sqlite.FaultCorrupt {
				t.Fatalf("error is not ErrCorrupt: %v", err)
			}
			for _, want := range []string{path, "integrity check", ".recover", ".bak-v"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
	// An intact file opens.
	db, err := sqlite.Open(ctx, sqlite.Options{Path: buildStore(t, 50), NoBackup: true})
	if err != nil {
		t.Fatalf("an intact file: %v", err)
	}
	db.Close()
}

// TestDatabaseFilesArePrivate: the database and its WAL and shared-memory
// files are 0600 whatever the umask, and a file an older cairn left 0644
// is made private at open.
func TestDatabaseFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0) // the worst case: files would be created 0666
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "memories.db")
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s: %s has mode %o, want 600", when, filepath.Base(p), st.Mode().Perm())
			}
		}
	}
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	check("new database")
	db.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Chmod(p, 0o644)
	}
	db, err = sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check("reopened 0644 database")
}

// TestDiskFullIsAFault: SQLITE_FULL (simulated with max_page_count) is
// classified as a full disk, remembered for health, refused without a
// half-written row, and cleared by the next commit.
func TestDiskFullIsAFault(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pages int
	if err := db.Reader().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `PRAGMA max_page_count = `+itoa(pages))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a full disk refuses this memory ", 400)
	err = db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		for i := range 20 {
			m := &storage.Memory{ID: "full-" + itoa(i), Type: "fact", Content: big, ContentHash: "h" + itoa(i),
				Confidence: 1, Importance: 0.5, SourceType: "manual", CreatedAt: ts(0), UpdatedAt: ts(0), UpdatedBy: "t"}
			if err := storage.InsertMemory(ctx, tx, m); err != nil {
				return err
			}
		}
		return nil
	})
	if sqlite.FaultOf(err) != sqlite.FaultFull {
		t.Fatalf("write on a full database: %v (fault %q), want SQLITE_FULL", err, sqlite.FaultOf(err))
	}
	if f, ok := db.LastFault(); !ok || f.Fault != sqlite.FaultFull || !strings.Contains(f.Message, "full") {
		t.Fatalf("last fault = %+v, %v", f, ok)
	}
	var n int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM memories`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after a failed write: %d, %v", n, err)
	}
	if err := db.WriteTx(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if f, ok := db.LastFault(); ok {
		t.Fatalf("a commit did not clear the fault: %+v", f)
	}
}

// TestCorruptionStopsWrites: once a damaged page has been met, WriteTx
// refuses to write over the file.
func TestCorruptionStopsWrites(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if f := db.NoteFault(errors.New("not a storage fault")); f != sqlite.FaultNone {
		t.Fatalf("an ordinary error classified as %q", f)
	}
	db.NoteFault(sqlite.ErrCorrupt)
	ran := false
	err = db.WriteTx(ctx, func(*sqlite.Tx) error { ran = true; return nil })
	if ran || !errors.Is(err, sqlite.ErrCorrupt) || !strings.Contains(err.Error(), "writes are refused") {
		t.Fatalf("write on a damaged store: ran=%v err=%v", ran, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// A server opens with the integrity check in the background: a damaged
// file opens, and the check, finishing after Open, faults the store, so
// that writes are refused as they would be had Open found the damage.
func TestBackgroundCheckFaultsDamagedFile(t *testing.T) {
	ctx := context.Background()
	path := buildStore(t, 600)
	st, _ := os.Stat(path)
	pages := int(st.Size() / 4096)
	damage(t, path, pages-30, pages-10) // data pages: only the check reads them
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, NoBackup: true, CheckInBackground: true})
	if err != nil {
		t.Fatalf("open with the check in the background: %v", err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := db.WriteTx(ctx, func(tx *sqlite.Tx) error { return nil })
		if errors.Is(err, sqlite.ErrCorrupt) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes still accepted (%v) 30 s after opening a damaged file", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if f, ok := db.LastFault(); !ok || f.Fault != sqlite.FaultCorrupt || !strings.Contains(f.Message, "integrity check") {
		t.Fatalf("fault %+v, want corrupt from the integrity check", f)
	}

	// An intact file stays writable.
	ok, err := sqlite.Open(ctx, sqlite.Options{Path: buildStore(t, 50), NoBackup: true, CheckInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	time.Sleep(100 * time.Millisecond)
	if err := ok.WriteTx(ctx, func(tx *sqlite.Tx) error { return nil }); err != nil {
		t.Fatalf("write to an intact file: %v", err)
	}
}
