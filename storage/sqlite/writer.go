package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cairnmem/cairn/storage/seam"
)

// Group commit. Every write goes through the one writer connection; when
// several callers want it at once (agents remembering from a few sessions,
// the workers catching up), the writer runs what is waiting in one SQLite
// transaction, each caller's function inside its own savepoint, and commits
// once. A function that fails rolls back to its savepoint only: its
// neighbours commit. Nothing waits to gather a batch: a lone write runs at
// once, as before; only writes that queued behind a running one share its
// successor's commit.
//
// A function runs whole once it has started: statements inside a
// transaction run detached from the caller's cancellation (Tx), because an
// interrupted statement rolls back the entire transaction, and with it the
// neighbours' writes. A caller whose context ended before its turn gets
// ctx's error and writes nothing.

// maxGroup bounds how many callers share one commit.
const maxGroup = 64

// writeReq is one WriteTx call waiting for the writer.
type writeReq struct {
	ctx  context.Context
	fn   func(tx seam.Tx) error // gets a *Tx
	done chan error
}

// writer is the goroutine that owns the write connection's transactions.
type writer struct {
	once sync.Once
	q    chan *writeReq
	mu   sync.RWMutex // closed is read by every caller, written by Close
	shut bool
	wg   sync.WaitGroup
}

// errClosed is the answer to a write after Close.
var errClosed = errors.New("storage: database is closed")

// panicked carries a panic out of the writer to the caller that caused it.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprintf("panic in write transaction: %v", p.v) }

// WriteTx runs fn in a write transaction (BEGIN IMMEDIATE) on the single
// writer connection and commits if fn returns nil; fn's changes are
// discarded if it returns an error. fn must not make network or model calls:
// every other writer waits while it runs. Concurrent calls may share one
// commit (see above); each gets its own result.
func (db *DB) WriteTx(ctx context.Context, fn func(tx *Tx) error) error {
	if fn == nil {
		return errNilTxFunc
	}
	return db.WriteTxSeam(ctx, func(tx seam.Tx) error { return fn(tx.(*Tx)) })
}

// WriteTxSeam is WriteTx for a function of the seam's Tx (storage's
// engine-neutral DB, the write path): fn gets this engine's *Tx as it
// is, with no wrapper in between.
func (db *DB) WriteTxSeam(ctx context.Context, fn func(tx seam.Tx) error) error {
	if fn == nil {
		return errNilTxFunc
	}
	return db.writeTx(&writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)})
}

func (db *DB) writeTx(req *writeReq) error {
	ctx := req.ctx
	if err := db.refuseWrites(); err != nil {
		return err
	}
	w := &db.writer
	w.once.Do(func() {
		w.q = make(chan *writeReq, maxGroup)
		w.wg.Add(1)
		go db.runWriter()
	})
	w.mu.RLock()
	if w.shut {
		w.mu.RUnlock()
		return errClosed
	}
	select {
	case w.q <- req:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err()
	}
	err := <-req.done
	if p, ok := err.(panicked); ok {
		panic(p.v)
	}
	return err
}

// stopWriter ends the writer goroutine once the writes queued are done.
func (db *DB) stopWriter() {
	w := &db.writer
	w.mu.Lock()
	if w.shut {
		w.mu.Unlock()
		return
	}
	w.shut = true
	started := w.q != nil
	if started {
		close(w.q)
	}
	w.mu.Unlock()
	if started {
		w.wg.Wait()
	}
}

func (db *DB) runWriter() {
	defer db.writer.wg.Done()
	batch := make([]*writeReq, 0, maxGroup)
	for first := range db.writer.q {
		batch = append(batch[:0], first)
	gather:
		for len(batch) < maxGroup {
			select {
			case r, ok := <-db.writer.q:
				if !ok {
					break gather
				}
				batch = append(batch, r)
			default:
				break gather
			}
		}
		db.commitGroup(batch)
		if db.changes != nil {
			db.changes.ckpt.restartIfDue()
		}
	}
}

// commitGroup runs batch in one transaction and answers each caller.
func (db *DB) commitGroup(batch []*writeReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	tx, err := db.write.BeginTx(context.Background(), nil)
	if err != nil {
		db.NoteFault(err)
		for _, r := range live {
			r.done <- fmt.Errorf("begin write: %w", err)
		}
		return
	}
	// The writer is busy from here until commit or rollback; health
	// reports a writer stuck in one transaction.
	began := time.Now().UnixNano()
	db.faults.writeSince.Store(began)
	defer db.faults.writeSince.CompareAndSwap(began, 0)
	t := &Tx{tx: tx, cache: db.writeStmts}
	alone := len(live) == 1
	results := make([]error, len(live))
	ok := 0
	for i, r := range live {
		if alone {
			results[i] = runFn(t, r)
		} else {
			results[i] = runSavepoint(t, r)
		}
		if results[i] == nil {
			ok++
		} else if _, isPanic := results[i].(panicked); !isPanic {
			db.NoteFault(results[i])
		}
	}
	if ok == 0 {
		_ = tx.Rollback()
		for i, r := range live {
			r.done <- results[i]
		}
		return
	}
	if err := tx.Commit(); err != nil {
		db.NoteFault(err)
		for i, r := range live {
			if results[i] == nil {
				results[i] = fmt.Errorf("commit: %w", err)
			}
			r.done <- results[i]
		}
		return
	}
	db.committed()
	t.warm(context.Background())
	for i, r := range live {
		r.done <- results[i]
	}
}

// runFn runs fn, turning a panic into a panicked error for its caller.
func runFn(t *Tx, r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicked{p}
		}
	}()
	return r.fn(t)
}

// runSavepoint runs fn inside a savepoint, rolled back if fn fails.
func runSavepoint(t *Tx, r *writeReq) error {
	ctx := context.Background()
	if _, err := t.tx.ExecContext(ctx, "SAVEPOINT w"); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	err := runFn(t, r)
	if err != nil {
		if _, rerr := t.tx.ExecContext(ctx, "ROLLBACK TO w"); rerr != nil {
			return errors.Join(err, fmt.Errorf("rollback to savepoint: %w", rerr))
		}
	}
	if _, rerr := t.tx.ExecContext(ctx, "RELEASE w"); rerr != nil && err == nil {
		return fmt.Errorf("release savepoint: %w", rerr)
	}
	return err
}
