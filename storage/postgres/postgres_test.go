package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

func open(t *testing.T, url string) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := Open(ctx, Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migrated creates a database of its own for t on c, migrated (a copy of
// a template migrated once), and returns its name.
func migrated(t *testing.T, c *pgtest.Cluster) string {
	t.Helper()
	return c.DatabaseFrom(t, "migrated", func(url string) error {
		db, err := Open(context.Background(), Options{URL: url})
		if err != nil {
			return err
		}
		return db.Close()
	})
}

func TestOpenMigratesOnceWhenServersStartTogether(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := c.Database(t)
	const servers = 4
	dbs := make([]*DB, servers)
	errs := make([]error, servers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			dbs[i], errs[i] = Open(context.Background(), Options{URL: c.URL(name)})
		}()
	}
	close(start)
	wg.Wait()
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	appliedBy := 0
	for i := range servers {
		if errs[i] != nil {
			t.Fatalf("server %d: %v", i, errs[i])
		}
		defer dbs[i].Close()
		switch got := dbs[i].Migrated(); len(got) {
		case 0:
		case len(ms):
			appliedBy++
		default:
			t.Errorf("server %d applied %v, want all of them or none", i, got)
		}
	}
	if appliedBy != 1 {
		t.Fatalf("%d servers applied the migrations, want 1", appliedBy)
	}
	rows, err := dbs[0].Reader().QueryContext(context.Background(), `SELECT version, name, checksum FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var v int
		var name, sum string
		if err := rows.Scan(&v, &name, &sum); err != nil {
			t.Fatal(err)
		}
		if i >= len(ms) || v != ms[i].Version || name != ms[i].Name || sum != ms[i].Checksum {
			t.Fatalf("schema_migrations row %d: %d %s %s", i, v, name, sum)
		}
	}
	if i != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", i, len(ms))
	}
	if again := open(t, c.URL(name)); len(again.Migrated()) != 0 {
		t.Fatalf("reopening applied %v", again.Migrated())
	}
}

func TestChangedOrNewerMigrationRefused(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	ctx := context.Background()
	db := open(t, c.URL(name))
	if _, err := db.sql.ExecContext(ctx, `UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(ctx, Options{URL: c.URL(name)})
	if !errors.Is(err, ErrBadChecksum) {
		t.Fatalf("Open after a changed migration: %v, want ErrBadChecksum", err)
	}
	if !strings.Contains(err.Error(), "0001_schema") {
		t.Errorf("error does not name the migration: %v", err)
	}
	ms, _ := Migrations()
	if _, err := db.sql.ExecContext(ctx, `UPDATE schema_migrations SET checksum = $1 WHERE version = 1`, ms[0].Checksum); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (999, 'future', 'x', 'now')`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{URL: c.URL(name)}); !errors.Is(err, ErrSchemaNewer) {
		t.Fatalf("Open of a newer schema: %v, want ErrSchemaNewer", err)
	}
}

func TestPasswordNeverInErrors(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const secret = "s3cr3t-Hunter2"
	cases := map[string]string{
		"wrong password": fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", pgtest.User, secret, c.Port),
		"in a parameter": fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable&password=%s", pgtest.User, c.Port, secret),
		"key=value":      fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=postgres sslmode=disable", c.Port, pgtest.User, secret),
		"no database":    fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/nowhere?sslmode=disable", pgtest.User, c.Password, c.Port),
		"nothing there":  fmt.Sprintf("postgres://%s:%s@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2", pgtest.User, secret),
		"unparsable":     fmt.Sprintf("postgres://%s:%s@127.0.0.1:notaport/postgres", pgtest.User, secret),
		"bad parameter":  fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=sometimes", pgtest.User, secret, c.Port),
	}
	for name, url := range cases {
		_, err := Open(ctx, Options{URL: url})
		if err == nil {
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		for _, pw := range []string{secret, c.Password} {
			if strings.Contains(err.Error(), pw) {
				t.Errorf("%s: the password is in the error: %v", name, err)
			}
		}
		t.Logf("%s: %v", name, err)
	}
	_, err := Open(ctx, Options{URL: c.URLWithoutPassword(""), PasswordFile: filepath.Join(t.TempDir(), "missing")})
	if err == nil {
		t.Error("Open with a missing password file succeeded")
	}
}

func TestPasswordFromFileOrEnvironment(t *testing.T) {
	c := pgtest.Shared(t)
	name := migrated(t, c)
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte(c.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), Options{URL: c.URLWithoutPassword(name), PasswordFile: file})
	if err != nil {
		t.Fatalf("password file: %v", err)
	}
	db.Close()
	if strings.Contains(db.Redacted(), c.Password) {
		t.Errorf("Redacted() shows the password: %s", db.Redacted())
	}
	t.Setenv("PGPASSWORD", c.Password)
	db, err = Open(context.Background(), Options{URL: c.URLWithoutPassword(name)})
	if err != nil {
		t.Fatalf("PGPASSWORD: %v", err)
	}
	db.Close()
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@h:5432/db":                "postgres://u:xxxxx@h:5432/db",
		"postgresql://u@h/db?password=pw&x=1":      "postgresql://u@h/db?password=xxxxx&x=1",
		"host=h password=pw user=u":                "host=h password=xxxxx user=u",
		"host=h password = 'p w\\'x' user=u":       "host=h password = xxxxx user=u",
		"postgres://u@h/db":                        "postgres://u@h/db",
		"postgres://u:p%40ss@h/db?sslmode=disable": "postgres://u:xxxxx@h/db?sslmode=disable",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// insertMemory writes a memory through q and returns its rid.
func insertMemory(t *testing.T, q Querier, content, project string) int64 {
	t.Helper()
	var rid int64
	now := time.Now().UTC().Format(time.RFC3339Nano)
	err := q.QueryRowContext(context.Background(), `INSERT INTO memories (id, content, content_hash, project, created_at, updated_at)
		VALUES ($1, $2, md5($2), NULLIF($3, ''), $4, $4) RETURNING rid`, "m-"+content, content, project, now).Scan(&rid)
	if err != nil {
		t.Fatal(err)
	}
	return rid
}

func TestWriteTxCommitsOrRollsBackWithTriggers(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	db := open(t, c.URL(name))
	ctx := context.Background()
	err := db.WriteTx(ctx, func(tx *Tx) error {
		insertMemory(t, tx, "kept", "cairn")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		insertMemory(t, tx, "dropped", "other")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("WriteTx = %v, want fn's error", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a panic in fn was not raised again")
			}
		}()
		_ = db.WriteTx(ctx, func(tx *Tx) error {
			insertMemory(t, tx, "panicked", "other")
			panic("fn")
		})
	}()
	var total, deleted, projects int
	r := db.Reader()
	if err := r.QueryRowContext(ctx, `SELECT total, deleted FROM memory_counts`).Scan(&total, &deleted); err != nil {
		t.Fatal(err)
	}
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM projects`).Scan(&projects); err != nil {
		t.Fatal(err)
	}
	if total != 1 || deleted != 0 || projects != 1 {
		t.Fatalf("counts %d/%d, projects %d; want 1/0 and 1", total, deleted, projects)
	}
	if _, err := r.ExecContext(ctx, `DELETE FROM memories`); err == nil {
		t.Fatal("the reader wrote")
	}
}

func TestWriteTxSerializedAcrossServers(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	a, b := open(t, c.URL(name)), open(t, c.URL(name))
	ctx := context.Background()
	inA, releaseA := make(chan struct{}), make(chan struct{})
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	errA := make(chan error, 1)
	go func() {
		errA <- a.WriteTx(ctx, func(tx *Tx) error {
			close(inA)
			<-releaseA
			note("a")
			return nil
		})
	}()
	<-inA
	// A caller whose ctx ends while it waits for its turn writes nothing.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := b.WriteTx(short, func(tx *Tx) error {
		insertMemory(t, tx, "late", "")
		return nil
	}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WriteTx past its deadline = %v", err)
	}
	errB := make(chan error, 1)
	go func() {
		errB <- b.WriteTx(ctx, func(tx *Tx) error { note("b"); return nil })
	}()
	time.Sleep(200 * time.Millisecond)
	close(releaseA)
	if err := <-errA; err != nil {
		t.Fatal(err)
	}
	if err := <-errB; err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, "") != "ab" {
		t.Fatalf("order %v: the second server's transaction did not wait", order)
	}
	var n int
	if err := b.Reader().QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("memories %d (%v): the timed-out write was kept", n, err)
	}
}

func TestChangeFeedFollowsCommitsInOrderOfEnding(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	writer, follower := open(t, c.URL(name)), open(t, c.URL(name))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	notes, err := follower.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var slowRid int64
	if err := writer.WriteTx(ctx, func(tx *Tx) error {
		slowRid = insertMemory(t, tx, "slow", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	<-notes
	cur, err := follower.ChangeCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A transaction that began earlier (its xid is smaller) and commits
	// later than another must not be skipped. (It updates, as an insert
	// would wait for the other's count in memory_counts.)
	slow, err := writer.sql.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback()
	if _, err := slow.ExecContext(ctx, `UPDATE memories SET content = 'slow, edited' WHERE rid = $1`, slowRid); err != nil {
		t.Fatal(err)
	}
	var fastRid int64
	if err := writer.WriteTx(ctx, func(tx *Tx) error {
		fastRid = insertMemory(t, tx, "fast", "")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notes:
	case <-ctx.Done():
		t.Fatal("no notification for a commit")
	}
	rids, next, err := follower.ChangesSince(ctx, cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(rids) != 0 {
		t.Fatalf("read %v while an older transaction runs; want nothing yet", rids)
	}
	cur = next
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	rids, cur = waitChanges(t, follower, cur, 2)
	if fmt.Sprint(rids) != fmt.Sprint([]int64{slowRid, fastRid}) {
		t.Fatalf("changes %v, want [%d %d]", rids, slowRid, fastRid)
	}

	// Updates and deletes are changes; a rolled-back write is none.
	if err := writer.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memories SET pinned = 1 WHERE rid = $1`, slowRid)
		if err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM memories WHERE rid = $1`, fastRid)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_ = writer.WriteTx(ctx, func(tx *Tx) error {
		insertMemory(t, tx, "rolled back", "")
		return errors.New("no")
	})
	rids, cur = waitChanges(t, follower, cur, 2)
	if fmt.Sprint(rids) != fmt.Sprint([]int64{slowRid, fastRid}) {
		t.Fatalf("changes %v, want [%d %d]", rids, slowRid, fastRid)
	}
	if n, err := follower.PruneChanges(ctx, cur); err != nil || n == 0 {
		t.Fatalf("PruneChanges = %d, %v", n, err)
	}
	if rids, _, err := follower.ChangesSince(ctx, Cursor{}); err != nil || len(rids) != 0 {
		t.Fatalf("after pruning: %v, %v", rids, err)
	}
}

// waitChanges reads from cur until want rids came (or a few seconds pass).
func waitChanges(t *testing.T, db *DB, cur Cursor, want int) ([]int64, Cursor) {
	t.Helper()
	var all []int64
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rids, next, err := db.ChangesSince(context.Background(), cur)
		if err != nil {
			t.Fatal(err)
		}
		all, cur = append(all, rids...), next
		if len(all) >= want {
			return all, cur
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("got changes %v, want %d", all, want)
	return nil, cur
}

func TestLeaseJobOneWorkerPerJobAcrossServers(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	servers := []*DB{open(t, c.URL(name)), open(t, c.URL(name))}
	ctx := context.Background()
	const jobs = 300
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if err := servers[0].WriteTx(ctx, func(tx *Tx) error {
		for i := range jobs {
			typ := []string{"extract", "embed", "document"}[i%3]
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, job_type, created_at, updated_at)
				VALUES ($1, $2, $3, $3)`, fmt.Sprintf("job-%03d", i), typ, now); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	leased := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for s, db := range servers {
		for w := range 8 {
			owner := fmt.Sprintf("server%d/worker%d", s, w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for misses := 0; misses < 3; {
					id, err := db.LeaseJob(ctx, owner, nil, time.Now().UTC().Format(time.RFC3339Nano))
					if errors.Is(err, ErrNoJob) {
						misses++
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					if prev, dup := leased[id]; dup {
						errs <- fmt.Errorf("%s leased by %s and %s", id, prev, owner)
					}
					leased[id] = owner
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(leased) != jobs {
		t.Fatalf("leased %d jobs, want %d", len(leased), jobs)
	}
	var n int
	if err := servers[1].Reader().QueryRowContext(ctx, `SELECT count(*) FROM memory_jobs
		WHERE status = 'leased' AND attempts = 1 AND lease_owner IS NOT NULL`).Scan(&n); err != nil || n != jobs {
		t.Fatalf("%d jobs leased once (%v), want %d", n, err, jobs)
	}
	byServer := map[string]int{}
	for _, owner := range leased {
		byServer[owner[:7]]++
	}
	t.Logf("leases by server: %v", byServer)
	if _, err := servers[0].LeaseJob(ctx, "late", []string{"embed"}, now); !errors.Is(err, ErrNoJob) {
		t.Fatalf("lease from an empty queue: %v", err)
	}
}

// The triggers do what SQLite's do: a created event gets back its
// content before the content changes; a deleted memory takes its entity
// links (counted off their entities) and its successors' context link; a
// deleted entity takes its links; the counts follow soft deletes.
func TestTriggersKeepRowsAsOnSQLite(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	db := open(t, c.URL(name))
	ctx := context.Background()
	var first, second int64
	err := db.WriteTx(ctx, func(tx *Tx) error {
		first = insertMemory(t, tx, "first", "p")
		second = insertMemory(t, tx, "second", "p")
		for _, q := range []string{
			`UPDATE memories SET context_rid = $1 WHERE rid = $2`,
			`INSERT INTO memory_history (id, memory_id, event, changed_by, created_at) SELECT 'h1', id, 'created', 'me', 'now' FROM memories WHERE rid = $1 AND $2 > 0`,
			`INSERT INTO entities (id, name, canonical_name, mentions, created_at, updated_at) VALUES ('e1', 'E', 'e', 2, 'now', 'now'), ('e2', 'F', 'f', 1, 'now', 'now')`,
		} {
			args := []any{first, second}
			if !strings.Contains(q, "$1") {
				args = nil
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO memory_entity_mentions (memory_rid, entity_rid)
			SELECT $1::bigint, rid FROM entities UNION ALL SELECT $2::bigint, rid FROM entities WHERE id = 'e1'`, first, second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if err := db.WriteTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q, args...); return err }); err != nil {
			t.Fatal(err)
		}
	}
	one := func(q string, args ...any) string {
		t.Helper()
		var s string
		if err := db.Reader().QueryRowContext(ctx, q, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	exec(`UPDATE memories SET content = 'first, edited' WHERE rid = $1`, first)
	if got := one(`SELECT new_content FROM memory_history WHERE id = 'h1'`); got != "first" {
		t.Errorf("created event holds %q, want the content it was created with", got)
	}
	exec(`UPDATE memories SET is_deleted = 1 WHERE rid = $1`, second)
	if got := one(`SELECT total || '/' || deleted FROM memory_counts`); got != "2/1" {
		t.Errorf("counts %s, want 2/1", got)
	}
	exec(`DELETE FROM memories WHERE rid = $1`, first)
	if got := one(`SELECT COALESCE(context_rid::text, 'none') FROM memories WHERE rid = $1`, second); got != "none" {
		t.Errorf("successor's context_rid %s after its predecessor was purged", got)
	}
	if got := one(`SELECT string_agg(id || '=' || mentions, ',' ORDER BY id) FROM entities`); got != "e1=1,e2=0" {
		t.Errorf("entity mentions %s, want e1=1,e2=0", got)
	}
	exec(`DELETE FROM entities WHERE id = 'e1'`)
	if got := one(`SELECT count(*)::text FROM memory_entity_mentions`); got != "0" {
		t.Errorf("%s links left after their entity went", got)
	}
	if got := one(`SELECT total || '/' || deleted FROM memory_counts`); got != "1/1" {
		t.Errorf("counts %s, want 1/1", got)
	}
	if got := one(`SELECT string_agg(id, ',') FROM projects`); got != "p" {
		t.Errorf("projects %s", got)
	}
	// The rowid of migration 0003 orders history's ties.
	if got := one(`SELECT string_agg(id, ',' ORDER BY created_at DESC, rowid DESC) FROM memory_history`); got != "h1" {
		t.Errorf("history %s", got)
	}
}

// A server's follower sees a memory written through another server
// within a second (issue 31), through the notification, and Return puts
// taken rids back.
func TestFollowerSeesAnotherServersWritesWithinASecond(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	writer, reader := open(t, c.URL(name)), open(t, c.URL(name))
	ctx := context.Background()
	// A long poll: what arrives within the second comes by notification.
	f, err := reader.Follow(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	var rid int64
	written := time.Now()
	if err := writer.WriteTx(ctx, func(tx *Tx) error {
		rid = insertMemory(t, tx, "shared", "team")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for f.PendingMemoryChanges() == 0 {
		if time.Since(written) > time.Second {
			t.Fatalf("no change after a second (last error: %v)", f.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("seen after %v", time.Since(written))
	got := f.TakeMemoryChanges()
	if fmt.Sprint(got) != fmt.Sprint([]int64{rid}) {
		t.Fatalf("took %v, want [%d]", got, rid)
	}
	if f.PendingMemoryChanges() != 0 || len(f.TakeMemoryChanges()) != 0 {
		t.Fatal("taken rids were given twice")
	}
	f.ReturnMemoryChanges(got)
	if back := f.TakeMemoryChanges(); fmt.Sprint(back) != fmt.Sprint(got) {
		t.Fatalf("returned %v, took back %v", got, back)
	}
}

func TestFaultOf(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	name := migrated(t, c)
	db := open(t, c.URL(name))
	ctx := context.Background()
	var roErr error
	_ = db.WriteTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `SET TRANSACTION READ ONLY`); err != nil {
			return err
		}
		_, roErr = tx.ExecContext(ctx, `INSERT INTO project_steps VALUES ('a', 'b')`)
		return roErr
	})
	if got := FaultOf(roErr); got != FaultReadOnly {
		t.Errorf("FaultOf(%v) = %q, want readonly", roErr, got)
	}
	_, bad := db.Reader().QueryContext(ctx, `SELECT nope FROM memories`)
	if got := FaultOf(bad); bad == nil || got != FaultNone {
		t.Errorf("FaultOf(%v) = %q, want none: a query's error", bad, got)
	}
	_, gone := Open(ctx, Options{URL: "postgres://x:y@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2"})
	if got := FaultOf(gone); got != FaultUnreachable {
		t.Errorf("FaultOf(%v) = %q, want unreachable", gone, got)
	}
	if FaultOf(nil) != FaultNone {
		t.Error("FaultOf(nil)")
	}
}

// The log is pruned below the oldest cursor of the followers seen within
// LiveWindow: what a live follower has not read stays, a follower silent
// for longer holds nothing back, and one silent for a day is dropped.
func TestChangeLogPrunedBelowLiveFollowers(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t)
	db := open(t, c.URL(""))
	ctx := context.Background()
	write := func(name string) {
		t.Helper()
		if err := db.WriteTx(ctx, func(tx *Tx) error { insertMemory(t, tx, name, ""); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	logged := func() int {
		t.Helper()
		var n int
		if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM memory_changes`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write("a")
	slow, err := db.ChangeCursor(ctx) // has read a
	if err != nil {
		t.Fatal(err)
	}
	write("b")
	fast, err := db.ChangeCursor(ctx) // has read a and b
	if err != nil {
		t.Fatal(err)
	}
	write("c")
	if n, err := db.PruneFollowed(ctx); err != nil || n != 0 {
		t.Fatalf("with no follower recorded, pruned %d (%v), want none", n, err)
	}
	if err := db.Beat(ctx, "slow", slow); err != nil {
		t.Fatal(err)
	}
	if err := db.Beat(ctx, "fast", fast); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PruneFollowed(ctx); err != nil || n != 1 || logged() != 2 {
		t.Fatalf("pruned %d (%v), %d left; want a's row pruned, b's and c's kept for the slow follower", n, err, logged())
	}
	// The slow follower silent past the window: the fast one's cursor rules.
	if _, err := db.sql.ExecContext(ctx, `UPDATE memory_changes_followers SET seen_at = now() - interval '11 minutes' WHERE id = 'slow'`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PruneFollowed(ctx); err != nil || n != 1 || logged() != 1 {
		t.Fatalf("pruned %d (%v), %d left; want b's row pruned, c's kept", n, err, logged())
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE memory_changes_followers SET seen_at = now() - interval '25 hours' WHERE id = 'slow'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PruneFollowed(ctx); err != nil {
		t.Fatal(err)
	}
	var followers int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM memory_changes_followers`).Scan(&followers); err != nil || followers != 1 {
		t.Fatalf("%d followers left (%v), want the fast one", followers, err)
	}
	// A Follower records itself at once.
	f, err := db.Follow(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM memory_changes_followers`).Scan(&followers); err != nil || followers != 2 || f.Behind() {
		t.Fatalf("%d followers after Follow (%v), behind %v", followers, err, f.Behind())
	}
}

// PostgreSQL's text cannot hold NUL, which SQLite's can: a string bound
// with one is stored without it rather than failing the write.
func TestNULDroppedFromText(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t)
	db := open(t, c.URL(""))
	ctx := context.Background()
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO memories (id, content, content_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			"nul", "red \x00 end", "h", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.Reader().QueryRowContext(ctx, `SELECT content FROM memories WHERE id = ?`, "nul").Scan(&got); err != nil || got != "red  end" {
		t.Fatalf("content = %q, %v", got, err)
	}
	edited := "blue \x00 end" // and through a *string (history's content before and after)
	if err := db.WriteTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memories SET content = ? WHERE id = ?`, &edited, "nul")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader().QueryRowContext(ctx, `SELECT content FROM memories WHERE id = ?`, "nul").Scan(&got); err != nil || got != "blue  end" {
		t.Fatalf("content = %q, %v", got, err)
	}
}
