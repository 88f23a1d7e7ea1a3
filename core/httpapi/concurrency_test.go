package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core"
)

// concurrentWorkers is kept small: under -race the translated SQLite is
// about 40 times slower.
const concurrentWorkers = 8

// raceTimeout bounds each request of a race. A deadlocked writer then makes
// the test fail with "context deadline exceeded" (the cancelled request
// contexts also unblock the server) instead of hanging the whole package
// until go test's own timeout.
const raceTimeout = 30 * time.Second

// race runs fn on concurrentWorkers goroutines released together and
// returns their answers in worker order. fn runs off the test goroutine, so
// it returns errors instead of failing the test.
func race(t *testing.T, fn func(ctx context.Context, i int) (*apitest.Resp, error)) []*apitest.Resp {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), raceTimeout)
	defer cancel()
	out := make([]*apitest.Resp, concurrentWorkers)
	errs := make([]error, concurrentWorkers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range concurrentWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i], errs[i] = fn(ctx, i)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v (a deadlock between concurrent writers?)", i, err)
		}
	}
	return out
}

// tally counts answers by "<status> <status field>".
func tally(rs []*apitest.Resp) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[fmt.Sprintf("%d %s", r.Status, r.Str("status"))]++
	}
	return m
}

// Eight clients PATCH the same memory with the same if_version: exactly one
// wins, the others see version_conflict, and exactly one update is
// recorded.
func TestConcurrentPatchSameVersion(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "contended memory")
	rs := race(t, func(ctx context.Context, i int) (*apitest.Resp, error) {
		return e.SendCtx(ctx, "PATCH", "/api/memory/"+id, map[string]any{
			"importance": float64(i) / 10, "reason": fmt.Sprintf("writer %d", i), "if_version": 1,
		}, apitest.Hdr("X-Cairn-Actor", fmt.Sprintf("writer-%d", i)))
	})
	got := tally(rs)
	want := map[string]int{"200 updated": 1, "409 version_conflict": concurrentWorkers - 1}
	if len(got) != len(want) || got["200 updated"] != 1 || got["409 version_conflict"] != concurrentWorkers-1 {
		t.Fatalf("outcomes = %v, want %v", got, want)
	}
	winner := -1
	for i, r := range rs {
		switch r.Status {
		case http.StatusOK:
			winner = i
			if r.Num("newVersion") != 2 || r.Num("currentVersion") != 1 {
				t.Errorf("winner: %s", r)
			}
		case http.StatusConflict:
			if r.Str("code") != core.CodeVersionConflict || r.Num("currentVersion") != 2 {
				t.Errorf("loser %d: %s", i, r)
			}
		}
	}
	g := e.Get(t, "/api/memory/"+id).Want(t, http.StatusOK)
	if g.Num("version") != 2 || g.Num("importance") != float64(winner)/10 || g.Str("updated_by") != fmt.Sprintf("writer-%d", winner) {
		t.Fatalf("final memory %s, winner %d", g, winner)
	}
	hist := e.HistoryEvents(t, id)
	if names := apitest.EventNames(hist); !slices.Equal(names, []string{"created", "updated"}) {
		t.Fatalf("history = %v, want exactly one update", names)
	}
	if hist[1]["changedBy"] != fmt.Sprintf("writer-%d", winner) {
		t.Fatalf("update recorded for %v, winner was writer-%d", hist[1]["changedBy"], winner)
	}
}

// Eight clients delete the same memory: one deletes it, the rest are told
// it is already deleted, and one deleted event is written.
func TestConcurrentDeleteSameMemory(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	id := e.MustID(t, "deleted by many")
	rs := race(t, func(ctx context.Context, i int) (*apitest.Resp, error) {
		return e.SendCtx(ctx, "DELETE", "/api/memory/"+id, map[string]any{"reason": "race"}, nil)
	})
	if got := tally(rs); got["200 deleted"] != 1 || got["409 already_deleted"] != concurrentWorkers-1 {
		t.Fatalf("outcomes = %v", got)
	}
	if names := apitest.EventNames(e.HistoryEvents(t, id)); !slices.Equal(names, []string{"created", "deleted"}) {
		t.Fatalf("history = %v", names)
	}
}

// Eight clients remember the same content (in different spellings): one
// memory, one created event, and every answer names it.
func TestConcurrentRememberSameContent(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	rs := race(t, func(ctx context.Context, i int) (*apitest.Resp, error) {
		content := "Concurrent dedup target."
		if i%2 == 1 {
			content = "  concurrent   DEDUP target "
		}
		return e.SendCtx(ctx, "POST", "/api/memory/remember", map[string]any{"content": content}, nil)
	})
	ids := map[string]bool{}
	deduped := 0
	for _, r := range rs {
		if r.Status != http.StatusOK {
			t.Fatalf("remember: %s", r)
		}
		ids[r.Str("id")] = true
		if r.Bool("deduped") {
			deduped++
		}
	}
	if len(ids) != 1 || deduped != concurrentWorkers-1 {
		t.Fatalf("%d distinct ids, %d deduped; want 1 and %d", len(ids), deduped, concurrentWorkers-1)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE event = 'created'`); n != 1 {
		t.Fatalf("%d created events", n)
	}
}
