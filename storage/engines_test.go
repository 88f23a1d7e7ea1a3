package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/postgres"
	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// store is a database under test on either engine, as the query tests
// use it: write transactions and the reader, both storage Queriers.
type store struct {
	engine  string
	writeTx func(ctx context.Context, fn func(storage.Querier) error) error
	reader  storage.Querier
	// leaseJob leases a due job as the engine does (nil when none is).
	leaseJob func(ctx context.Context, owner string, types []string, now string) (*storage.Job, error)
}

func (s *store) WriteTx(ctx context.Context, fn func(storage.Querier) error) error {
	return s.writeTx(ctx, fn)
}

func (s *store) Reader() storage.Querier { return s.reader }

// onSQLite is db as a store.
func onSQLite(db *storage.DB) *store {
	return &store{engine: "sqlite", reader: db.Reader(),
		writeTx: func(ctx context.Context, fn func(storage.Querier) error) error {
			return db.WriteTx(ctx, func(tx storage.Tx) error { return fn(tx) })
		},
		leaseJob: func(ctx context.Context, owner string, types []string, now string) (j *storage.Job, err error) {
			err = db.WriteTx(ctx, func(tx storage.Tx) error {
				j, err = storage.LeaseJob(ctx, tx, owner, types, now)
				if errors.Is(err, storage.ErrNotFound) {
					j, err = nil, nil
				}
				return err
			})
			return j, err
		}}
}

// sqliteStore opens a fresh SQLite database.
func sqliteStore(t *testing.T) *store { return onSQLite(openJobsDB(t)) }

// postgresStore opens a fresh database on cluster c, migrated (a copy of
// a template migrated once).
func postgresStore(t *testing.T, c *pgtest.Cluster) *store {
	t.Helper()
	ctx := context.Background()
	pg, err := postgres.Open(ctx, postgres.Options{URL: c.URL(storage.MigratedPostgres(t, c))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	return &store{engine: "postgres", reader: pg.Reader(),
		writeTx: func(ctx context.Context, fn func(storage.Querier) error) error {
			return pg.WriteTx(ctx, func(tx *postgres.Tx) error { return fn(tx) })
		},
		leaseJob: func(ctx context.Context, owner string, types []string, now string) (*storage.Job, error) {
			id, err := pg.LeaseJob(ctx, owner, types, now)
			if errors.Is(err, postgres.ErrNoJob) {
				return nil, nil
			} else if err != nil {
				return nil, err
			}
			return storage.GetJob(ctx, pg.Reader(), id)
		}}
}

// queryTests are the query tests that run on both engines: each runs on
// SQLite as its own test, and on PostgreSQL in TestQueriesOnPostgres.
var queryTests = []struct {
	name string
	run  func(t *testing.T, db *store)
}{
	{"SessionQueries", testSessionQueries},
	{"GraphQueries", testGraphQueries},
	{"EmbeddingQueries", testEmbeddingQueries},
	{"DedupQueries", testDedupQueries},
	{"MemoryJobDocumentAndInjectQueries", testMemoryJobDocumentAndInjectQueries},
	{"PendingEmbeddingsFrom", testPendingEmbeddingsFrom},
	{"InsertMemoriesAsInsertMemory", testInsertMemoriesAsInsertMemory},
	{"EnqueueDedup", testEnqueueDedup},
	{"LeaseAtomic", testLeaseAtomic},
	{"RetryBackoffThenDead", testRetryBackoffThenDead},
	{"ReaperReturnsStaleLeaseOnce", testReaperReturnsStaleLeaseOnce},
	{"LeaseFairAcrossTypes", testLeaseFairAcrossTypes},
	{"ListRequeueRetryJobs", testListRequeueRetryJobs},
	{"RequeueDeadBatchLimit", testRequeueDeadBatchLimit},
	{"RequeueDeadOneLivePerMemory", testRequeueDeadOneLivePerMemory},
	{"MemoryStamp", testMemoryStamp},
}

// TestQueriesOnPostgres runs storage's query tests (queryTests) on the
// PostgreSQL engine, each in a database of its own on one throwaway
// cluster: the same statements, the same assertions.
func TestQueriesOnPostgres(t *testing.T) {
	t.Parallel()
	c := pgtest.Shared(t)
	for _, qt := range queryTests {
		t.Run(qt.name, func(t *testing.T) {
			t.Parallel()
			qt.run(t, postgresStore(t, c))
		})
	}
}
