package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/retention"
)

// TestCreatedEventShowsWhatWasCreated: a "created" event stores no copy
// of the content its memory row holds (the row is the one copy), yet the
// history API shows the content the memory was created with, also after
// the memory is edited and after its row is purged.
func TestCreatedEventShowsWhatWasCreated(t *testing.T) {
	t.Parallel()
	e := apitest.NewEnv(t)
	stored := func(id string) *string {
		var s *string
		if err := e.RO.QueryRow(`SELECT new_content FROM memory_history WHERE memory_id = ? AND event = 'created'`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	createdContent := func(id string) any {
		hist := e.HistoryEvents(t, id)
		if len(hist) == 0 || hist[0]["event"] != "created" {
			t.Fatalf("history of %s: %v", id, hist)
		}
		return hist[0]["newContent"]
	}

	a := e.MustID(t, "The staging database listens on port 5433.")
	if s := stored(a); s != nil {
		t.Fatalf("the created event repeats the row's content: %q", *s)
	}
	if got := createdContent(a); got != "The staging database listens on port 5433." {
		t.Fatalf("created with %v", got)
	}
	e.Clock.Advance(time.Minute)
	e.Patch(t, a, map[string]any{"content": "The staging database listens on port 6432.", "reason": "moved", "if_version": 1}).Want(t, 200)
	if got := createdContent(a); got != "The staging database listens on port 5433." {
		t.Fatalf("after an edit the created event shows %v", got)
	}
	hist := e.HistoryEvents(t, a)
	if hist[1]["event"] != "updated" || hist[1]["oldContent"] != "The staging database listens on port 5433." ||
		hist[1]["newContent"] != "The staging database listens on port 6432." {
		t.Fatalf("updated event: %v", hist[1])
	}

	b := e.MustID(t, "The nightly backup runs at 02:00 UTC.")
	e.Clock.Advance(time.Minute)
	e.Del(t, b, map[string]any{"reason": "obsolete"}).Want(t, 200)
	e.Clock.Advance(time.Hour)
	err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		ids, err := retention.PurgeTombstones(context.Background(), tx, storage.FormatTime(e.Clock.Now()), 10)
		if err == nil && (len(ids) != 1 || ids[0] != b) {
			t.Errorf("purged %v", ids)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ?`, b); n != 0 {
		t.Fatal("the tombstone was not purged")
	}
	if got := createdContent(b); got != "The nightly backup runs at 02:00 UTC." {
		t.Fatalf("after a purge the created event shows %v", got)
	}

	// An imported memory's created event too.
	res, err := e.App.Transfer.Import(context.Background(), []transfer.ImportLine{{Line: 1, Memory: core.Memory{ID: "0195a1b2-0000-7000-8000-00000000aa01",
		Content: "Imported: the cache TTL is 300 s.", Type: "fact", Importance: 0.5, Confidence: 1}}}, core.Actor{Name: "test"})
	if err != nil || res.Imported != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
	if s := stored("0195a1b2-0000-7000-8000-00000000aa01"); s != nil {
		t.Fatalf("the imported created event repeats the row's content: %q", *s)
	}
	if got := createdContent("0195a1b2-0000-7000-8000-00000000aa01"); got != "Imported: the cache TTL is 300 s." {
		t.Fatalf("imported memory created with %v", got)
	}
}
