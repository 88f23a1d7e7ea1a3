package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Parsing SQL dominated cairn's write path (over 40% of CPU in a bulk
// import) because database/sql prepares every statement anew. Both the
// writer and the reader pool therefore keep their prepared statements.

// maxCachedStmts bounds each cache. Filters build an open-ended set of
// queries (an IN list per length); once full, new queries run unprepared
// rather than evict statements another goroutine may be using.
const maxCachedStmts = 512

type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache { return &stmtCache{db: db, m: map[string]*sql.Stmt{}} }

func (c *stmtCache) lookup(query string) (*sql.Stmt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[query]
	return st, ok
}

// get returns the cached statement for query, preparing it if needed. It
// returns nil (and no error) when the cache is full.
func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if ok || full {
		return st, nil
	}
	// Prepare without holding the lock: preparing may wait for a connection
	// that a transaction holds while it, in turn, looks up this cache.
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev, nil
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	if c == nil { // a Reader without a background connection (OpenReadOnly)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}

// Querier runs statements: a *Tx or a *Reader. Its methods are those of
// storage.Querier, which the query layer's functions take.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Tx is a write transaction whose statements come from the writer's cache.
// It satisfies Querier.
//
// The writer pool has one connection and the transaction holds it, so a
// statement missing from the cache cannot be prepared on the pool (that
// would wait for the connection forever). It is prepared on the transaction
// instead, and prepared on the pool once the transaction ends; later
// transactions on the same connection then reuse it.
type Tx struct {
	tx      *sql.Tx
	cache   *stmtCache
	local   map[string]*sql.Stmt
	missing []string
}

// InWriteTx marks a write transaction (seam.Tx).
func (t *Tx) InWriteTx() {}

// Statements in a transaction run detached from the caller's
// cancellation (see writer.go): an interrupted statement would roll back
// the whole transaction, neighbours' writes included.
func (t *Tx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	ctx = context.WithoutCancel(ctx)
	if st, ok := t.cache.lookup(query); ok {
		return t.tx.StmtContext(ctx, st), nil
	}
	if st, ok := t.local[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if t.local == nil {
		t.local = map[string]*sql.Stmt{}
	}
	t.local[query] = st
	t.missing = append(t.missing, query)
	return st, nil
}

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = context.WithoutCancel(ctx)
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext runs a query in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = context.WithoutCancel(ctx)
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs a single-row query in the transaction.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = context.WithoutCancel(ctx)
	st, err := t.stmt(ctx, query)
	if err != nil {
		// Let the error surface from Scan, as database/sql does.
		return t.tx.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// Exec runs a statement with a background context (tests and one-offs).
func (t *Tx) Exec(query string, args ...any) (sql.Result, error) {
	return t.ExecContext(context.Background(), query, args...)
}

// ExecScript runs SQL that may hold several statements (a migration). It is
// not cached: prepared statements hold only the first statement of a script.
func (t *Tx) ExecScript(ctx context.Context, script string) error {
	_, err := t.tx.ExecContext(context.WithoutCancel(ctx), script)
	return err
}

// warm prepares on the pool the statements this transaction had to prepare
// itself. It runs after the transaction released the connection.
func (t *Tx) warm(ctx context.Context) {
	for _, q := range t.missing {
		_, _ = t.cache.get(ctx, q)
	}
}

// Reader runs queries on the reader pool with cached statements. It
// satisfies Querier; writes through it fail (the connections are query_only).
// A context marked with BackgroundReads runs on a connection of its own
// (side), so background reads never take a request's connection.
type Reader struct{ cache, side *stmtCache }

type backgroundReadsKey struct{}

// BackgroundReads marks ctx so that the Reader runs its queries on the
// background connection: the /health snapshot, which must neither wait
// for the request pool under load nor hold one of its connections.
func BackgroundReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundReadsKey{}, true)
}

func (r *Reader) pick(ctx context.Context) *stmtCache {
	if r.side != nil && ctx.Value(backgroundReadsKey{}) != nil {
		return r.side
	}
	return r.cache
}

// QueryContext runs a query on a reader connection.
func (r *Reader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c := r.pick(ctx)
	st, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs a single-row query on a reader connection.
func (r *Reader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	c := r.pick(ctx)
	st, err := c.get(ctx, query)
	if err != nil || st == nil {
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// ExecContext exists to satisfy Querier; readers cannot write.
func (r *Reader) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.pick(ctx).db.ExecContext(ctx, query, args...)
}

// QueryRow is QueryRowContext with a background context.
func (r *Reader) QueryRow(query string, args ...any) *sql.Row {
	return r.QueryRowContext(context.Background(), query, args...)
}

// Query is QueryContext with a background context.
func (r *Reader) Query(query string, args ...any) (*sql.Rows, error) {
	return r.QueryContext(context.Background(), query, args...)
}
