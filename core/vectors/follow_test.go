package vectors_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/postgres/pgtest"
)

// Two servers on one PostgreSQL database: the vector index of one
// follows the other's writes through the change feed (FollowShared), a
// vector embedded and a memory forgotten there alike, though it never
// embeds or writes anything itself.
func TestVectorIndexFollowsAnotherServer(t *testing.T) {
	c := pgtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func() *app.App {
		db, err := storage.Open(ctx, storage.Options{Path: c.URL("")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		cfg := config.DefaultConfig()
		cfg.Pipeline.Enabled = false
		return app.New(db, cfg, app.Options{Embedder: &wordEmbedder{}})
	}
	a, b := open(), open()
	follow := b.Vectors.FollowShared()
	if err := b.Vectors.WarmVectors(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { follow(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	res, err := a.Service.Remember(ctx, core.RememberInput{Content: "the cat sleeps by the door"}, core.Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Memory.ID
	apitest.EmbedPending(t, a.Vectors)
	found := func() bool {
		q, err := b.Vectors.Search(ctx, "cat", 1, &storage.MemoryFilter{})
		return err == nil && slices.Contains(hitIDs(q.Hits), id)
	}
	if !waitFor(30*time.Second, found) {
		t.Fatal("the other server's vector index never found the memory embedded on the first")
	}
	if _, err := a.Service.Forget(ctx, core.ForgetInput{ID: id, Reason: "obsolete"}, core.Actor{Name: "test"}); err != nil {
		t.Fatal(err)
	}
	if !waitFor(30*time.Second, func() bool { return !found() }) {
		t.Fatal("the other server's vector index still finds a memory forgotten on the first")
	}
}

// waitFor polls cond until it holds or wait has passed.
func waitFor(wait time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
