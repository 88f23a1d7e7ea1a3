package core

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/keyword"
	textpkg "github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// TestKeywordIndexRebuildUnderWrites checks the index a background build
// swaps in while memories are written, edited and removed meanwhile: after
// the build, every word finds in the index exactly the live memories FTS5
// finds.
func TestKeywordIndexRebuildUnderWrites(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "k.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	s := NewService(db, cfg, ServiceOptions{})
	words := []string{"amber", "basalt", "cobalt", "dune", "ember", "fjord", "granite", "harbor"}
	text := func(i int) string {
		return fmt.Sprintf("%s %s note %d", words[i%len(words)], words[(i*3+1)%len(words)], i)
	}
	var rows []*BatchRow
	for i := range 3000 {
		norm := textpkg.NormalizeContent(text(i))
		rows = append(rows, &BatchRow{Memory: &storage.Memory{Content: norm.Storage, ContentHash: norm.Hash, Type: "fact",
			Importance: 0.5, Confidence: 1, SourceType: "manual", VectorClock: "{}"}})
	}
	s.PrepareBatch(rows)
	if err := db.WriteTx(ctx, func(tx storage.Tx) error {
		_, err := s.InsertBatch(ctx, tx, rows, Actor{Name: "test"}, "import")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.keyword.current(ctx); err != nil { // the first build
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.keyword.rebuild(ctx); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		for i := range 200 {
			res, err := s.Remember(ctx, RememberInput{Content: text(5000 + i)}, Actor{Name: "test"})
			if err != nil {
				t.Error(err)
				return
			}
			switch i % 4 {
			case 1:
				c := "edited " + text(9000+i)
				if _, err := s.Modify(ctx, Patch{ID: res.Memory.ID, Content: &c, Reason: "test"}, Actor{Name: "test"}); err != nil {
					t.Error(err)
					return
				}
			case 2:
				err := db.WriteTx(ctx, func(tx storage.Tx) error {
					_, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, res.Memory.ID)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
			if i%10 == 0 { // searches apply changes while the build runs
				if _, err := s.KeywordSearch(ctx, "amber", storage.MemoryFilter{}, 5); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	wg.Wait()
	for _, w := range append(words, "edited", "note") {
		got, err := s.KeywordSearch(ctx, w, storage.MemoryFilter{}, 10000)
		if err != nil {
			t.Fatal(err)
		}
		want, err := keywordHits(storage.SearchFTS(ctx, db.Reader(), `"`+w+`"`, storage.MemoryFilter{}, 10000))
		if err != nil {
			t.Fatal(err)
		}
		ids := func(hs []KeywordHit) []string {
			var out []string
			for _, h := range hs {
				out = append(out, h.Memory.ID)
			}
			slices.Sort(out)
			return out
		}
		if g, w2 := ids(got), ids(want); !slices.Equal(g, w2) {
			t.Fatalf("%q: the index finds %d memories, FTS5 %d", w, len(g), len(w2))
		}
	}
	if st, n := KeywordIndexStats(s), mustCount(t, db); st.Docs != n {
		t.Fatalf("the index holds %d documents, the table %d rows", st.Docs, n)
	}
}

func mustCount(t *testing.T, db *storage.DB) int {
	n, err := storage.CountMemoryRows(context.Background(), db.Reader())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestKeywordSearchOnAReadOnlyStore: the hook shim answers from a
// read-only store when no server runs. Recall there searches FTS5 (the
// in-memory index follows commits it cannot see); it used to panic on the
// store's missing change log.
func TestKeywordSearchOnAReadOnlyStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ro.db")
	db, err := storage.Open(ctx, storage.Options{Path: path, NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	cfg.Embedding.Provider = "none"
	w := NewService(db, cfg, ServiceOptions{})
	res, err := w.Remember(ctx, RememberInput{Content: "the staging database runs on port 5433"}, Actor{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := storage.OpenReadOnly(ctx, storage.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close(); db.Close() })
	if !ro.ReadOnly() || db.ReadOnly() {
		t.Fatal("ReadOnly does not tell the two stores apart")
	}
	r := NewService(ro, cfg, ServiceOptions{})
	got, err := r.Recall(ctx, RecallInput{Query: "staging database port", NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || got.Results[0].ID != res.Memory.ID {
		t.Fatalf("recall on the read-only store: %+v", got.Results)
	}
}

// A build that swaps its index in while a search is about to apply the
// latest commits must not lose them: they go to the index searched from
// then on, not to the one it replaced.
func TestKeywordChangesReachTheIndexSwappedIn(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "k.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	cfg.Pipeline.Enabled = false
	s := NewService(db, cfg, ServiceOptions{})
	if _, err := s.Remember(ctx, RememberInput{Content: "the amber runbook"}, Actor{Name: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.keyword.current(ctx); err != nil { // the first build
		t.Fatal(err)
	}
	// A commit, then a search that reads the index, a build that swaps a
	// new index in (here an empty one: what matters is that the commit's
	// change is still in the log for the search to apply), then the search
	// goes on to apply the change.
	res, err := s.Remember(ctx, RememberInput{Content: "the basalt deploy notes"}, Actor{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s.keyword.beforeApply = func() {
		s.keyword.beforeApply = nil
		s.keyword.ix.Store(keyword.Build(func(yield func(keyword.Doc) bool) {}))
	}
	if _, err := s.KeywordSearch(ctx, "basalt", storage.MemoryFilter{}, 10); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, "basalt", storage.MemoryFilter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Memory.ID != res.Memory.ID {
		t.Fatalf("the change went to the index swapped out: %d hits", len(hits))
	}
}
