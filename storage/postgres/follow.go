package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnmem/cairn/storage/changes"
)

// Follower keeps what a server's in-memory indexes need of the change
// feed, with the SQLite engine's methods (PendingMemoryChanges,
// TakeMemoryChanges, ReturnMemoryChanges): the rids of memories rows that
// any server's commits changed since the Follower started, gathered in
// the background on each notification and every poll interval.
type Follower struct {
	db     *DB
	poll   time.Duration
	cancel context.CancelFunc
	done   chan struct{}

	ready   changes.Set // for the keyword index: Take
	vectors changes.Set // for the vector index: TakeVectorChanges
	mu      sync.Mutex  // guards cur
	cur     Cursor
	err     atomic.Pointer[error] // the last read's failure, nil once one succeeds

	// Its cursor recorded (Beat) every beatEvery, the log pruned every
	// pruneEvery (by every server: each prune is the same).
	id                  string
	lastBeat, lastPrune time.Time
	behind              atomic.Bool
}

const (
	beatEvery  = 5 * time.Second
	pruneEvery = time.Minute
)

// Follow starts following from now: the caller reads the table after it
// returns, and the changes committed since come through Take (a change
// both read and reported costs a second read, never a miss). poll is how
// often it reads without a notification (250 ms when 0): a change whose
// notification came while an older transaction ran is read then. Stop
// ends it.
func (db *DB) Follow(ctx context.Context, poll time.Duration) (*Follower, error) {
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	// Listening before the cursor is taken: a commit after the cursor
	// notifies this listener.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	notes, err := db.Listen(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	cur, err := db.ChangeCursor(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &Follower{db: db, poll: poll, cancel: cancel, done: make(chan struct{}), cur: cur, id: followerID()}
	if err := db.Beat(ctx, f.id, cur); err != nil {
		cancel()
		return nil, err
	}
	f.lastBeat = time.Now()
	go f.run(ctx, notes)
	return f, nil
}

// Stop ends the following and waits for it.
func (f *Follower) Stop() {
	f.cancel()
	<-f.done
}

func (f *Follower) run(ctx context.Context, notes <-chan struct{}) {
	defer close(f.done)
	tick := time.NewTicker(f.poll)
	defer tick.Stop()
	for {
		if notes == nil {
			// (Re)listen; while the listener is down the poll still reads.
			if ch, err := f.db.Listen(ctx); err == nil {
				notes = ch
			}
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-notes:
			if !ok {
				notes = nil
			}
		case <-tick.C:
		}
		f.read(ctx)
	}
}

func (f *Follower) read(ctx context.Context) {
	f.mu.Lock()
	cur := f.cur
	f.mu.Unlock()
	rids, next, err := f.db.ChangesSince(ctx, cur)
	if err != nil {
		if ctx.Err() == nil {
			f.err.Store(&err)
		}
		return // the cursor stays: the next read takes them
	}
	f.err.Store(nil)
	f.ready.Add(slices.Values(rids)) // before the cursor passes them
	f.vectors.Add(slices.Values(rids))
	f.mu.Lock()
	f.cur = next
	f.mu.Unlock()
	f.upkeep(ctx, next)
}

// upkeep records the cursor when a beat is due and prunes the log when a
// prune is: only the loop's goroutine calls it.
func (f *Follower) upkeep(ctx context.Context, cur Cursor) {
	now := time.Now()
	if now.Sub(f.lastBeat) >= beatEvery {
		if err := f.db.Beat(ctx, f.id, cur); err != nil {
			return // the next read tries again
		}
		if now.Sub(f.lastBeat) > LiveWindow {
			// Silent for longer than the window: others may have
			// pruned rows this follower had not read.
			f.behind.Store(true)
		}
		f.lastBeat = now
	}
	if now.Sub(f.lastPrune) >= pruneEvery {
		if _, err := f.db.PruneFollowed(ctx); err == nil {
			f.lastPrune = now
		}
	}
}

// Behind reports whether the follower was cut off for longer than
// LiveWindow (the server unreachable, the process stopped): changes it
// had not read may have been pruned, so indexes built from it may miss
// them until they are rebuilt (the server restarted).
func (f *Follower) Behind() bool { return f.behind.Load() }

// followerID names a follower in memory_changes_followers: random, one
// per Follow.
func followerID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Err is the last read's failure, nil once a read succeeds again.
func (f *Follower) Err() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Cursor is where the follower stands (the log below it may be pruned
// once every server's follower is past it).
func (f *Follower) Cursor() Cursor {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

// PendingMemoryChanges says how many rids wait, cheaply.
func (f *Follower) PendingMemoryChanges() int { return f.ready.Len() }

// TakeMemoryChanges returns the waiting rids, once.
func (f *Follower) TakeMemoryChanges() []int64 { return f.ready.Take() }

// ReturnMemoryChanges puts back rids whose reading failed.
func (f *Follower) ReturnMemoryChanges(rids []int64) { f.ready.Add(slices.Values(rids)) }

// TakeVectorChanges returns the waiting rids once, apart from
// TakeMemoryChanges: the vector index follows the same feed as the
// keyword index, at its own pace.
func (f *Follower) TakeVectorChanges() []int64 { return f.vectors.Take() }

// Add hands the follower rids this server's own commit changed (they
// reach both sets at once; the feed brings them again later, which costs
// a second read, never a miss).
func (f *Follower) Add(rids []int64) {
	f.ready.Add(slices.Values(rids))
	f.vectors.Add(slices.Values(rids))
}
