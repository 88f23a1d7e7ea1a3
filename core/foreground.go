package core

import (
	"context"
	"sync/atomic"
	"time"
)

// Foreground work (a request an agent or a user waits for) goes before
// background work (embedding, extraction): workers wait on a Throttle
// before each pass, so a burst of remembers is not slowed by the queue it
// leaves behind. Times here are the machine's, never the service clock
// (tests move that one).

// foregroundGrace is how long after the last foreground request background
// work still waits: a client sending requests one after another leaves
// gaps shorter than this between them.
const foregroundGrace = 10 * time.Millisecond

// Foreground counts requests in flight and remembers when the last ended.
// Its zero value is ready to use; one is shared by a store's Service and
// its Vectors (whose background embedding asks Busy).
type Foreground struct {
	active atomic.Int64
	last   atomic.Int64 // unix nanoseconds
}

// Foreground returns the service's count of foreground requests.
func (s *Service) Foreground() *Foreground { return s.fg }

// Enter marks a foreground request until the returned function is called
// (the API's middleware calls it for every request but /health).
func (f *Foreground) Enter() (done func()) {
	f.active.Add(1)
	return func() {
		f.last.Store(time.Now().UnixNano())
		f.active.Add(-1)
	}
}

// Busy reports whether a foreground request is in flight or ended less
// than the grace period ago.
func (f *Foreground) Busy() bool {
	return f.active.Load() > 0 || time.Since(time.Unix(0, f.last.Load())) < foregroundGrace
}

// yield waits until no foreground request has been seen for the grace
// period, or at most maxWait. It reports whether the foreground is still
// busy; it returns early with ctx's error.
func (f *Foreground) yield(ctx context.Context, maxWait time.Duration) (busy bool, err error) {
	deadline := time.Now().Add(maxWait)
	for f.Busy() {
		if !time.Now().Before(deadline) {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(foregroundGrace / 2):
		}
	}
	return false, nil
}

// Background work's share of the machine while foreground requests keep
// coming: it waits up to throttleWait for a pause, then works for a slice
// of throttleSlice before it asks again — about 1% of the time under a
// steady stream (enough to show progress), all of it when the stream stops.
// A burst of remembers leaves its backlog for the pause after it.
const (
	throttleWait  = 2 * time.Second
	throttleSlice = 20 * time.Millisecond
)

// Throttle paces one background worker (one per goroutine).
type Throttle struct {
	fg       *Foreground
	sliceEnd time.Time
}

// NewThrottle returns a Throttle for a background worker that yields to
// f's requests.
func (f *Foreground) NewThrottle() *Throttle { return &Throttle{fg: f} }

// Wait returns when the worker may do its next piece of work: at once when
// no foreground request is in flight or recent, or while its slice lasts;
// else after a pause in the requests or throttleWait. busy reports that the
// foreground is still busy (the caller should do a small piece).
func (t *Throttle) Wait(ctx context.Context) (busy bool, err error) {
	if !t.fg.Busy() {
		return false, ctx.Err()
	}
	if time.Now().Before(t.sliceEnd) {
		return true, ctx.Err()
	}
	busy, err = t.fg.yield(ctx, throttleWait)
	if busy {
		t.sliceEnd = time.Now().Add(throttleSlice)
	}
	return busy, err
}
