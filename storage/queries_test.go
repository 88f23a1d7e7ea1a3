package storage_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/docstore"
)

// Table tests of the named queries core calls, on a real database.

func write(t *testing.T, db *store, fn func(ctx context.Context, tx storage.Querier) error) {
	t.Helper()
	ctx := context.Background()
	if err := db.WriteTx(ctx, func(tx storage.Querier) error { return fn(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
}

func ts(d time.Duration) string { return storage.FormatTime(t0.Add(d)) }

// addMemory inserts a live memory; edit adjusts it first.
func addMemory(t *testing.T, db *store, id, content string, edit func(*storage.Memory)) *storage.Memory {
	t.Helper()
	m := &storage.Memory{ID: id, Type: "fact", Content: content, ContentHash: "h-" + id,
		Confidence: 1, Importance: 0.5, SourceType: "manual", CreatedAt: ts(0), UpdatedAt: ts(0), UpdatedBy: "test"}
	if edit != nil {
		edit(m)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error { return storage.InsertMemory(ctx, tx, m) })
	return m
}

func TestEmbeddingQueries(t *testing.T) { testEmbeddingQueries(t, sqliteStore(t)) }

func testEmbeddingQueries(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "a", "alpha", func(m *storage.Memory) { m.UpdatedAt, m.Tags, m.Who = ts(3*time.Second), []string{"x"}, "me" })
	addMemory(t, db, "b", "beta", func(m *storage.Memory) { m.CreatedAt, m.UpdatedAt = ts(time.Second), ts(time.Second) })
	addMemory(t, db, "c", "gamma", func(m *storage.Memory) { m.CreatedAt, m.UpdatedAt = ts(2*time.Second), ts(2*time.Second) })
	// d shares b's content in another project; e is deleted.
	addMemory(t, db, "d", "beta", func(m *storage.Memory) { m.ContentHash, m.Project = "h-b", "p" })
	addMemory(t, db, "e", "gone", func(m *storage.Memory) { m.IsDeleted, m.DeletedAt = true, ts(0) })

	if _, err := storage.EmbeddingDimensions(ctx, r, "m1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("dimensions of an empty model: %v", err)
	}
	n, err := storage.CountPendingEmbeddings(ctx, r, "m1")
	if err != nil || n != 4 {
		t.Fatalf("pending = %d, %v; want 4", n, err)
	}
	ids := func(ps []storage.PendingEmbedding) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	newest, err := storage.PendingEmbeddings(ctx, r, "m1", 2)
	if err != nil || !slices.Equal(ids(newest), []string{"a", "c"}) {
		t.Fatalf("newest pending = %v, %v", ids(newest), err)
	}
	oldest, err := storage.OldestPendingEmbeddings(ctx, r, "m1", 3)
	if err != nil || !slices.Equal(ids(oldest), []string{"a", "d", "b"}) {
		t.Fatalf("oldest pending = %v, %v", ids(oldest), err)
	}

	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.UpsertEmbedding(ctx, tx, "h-a", "m1", 2, []byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
			return err
		}
		// A second upsert replaces the first.
		if err := storage.UpsertEmbedding(ctx, tx, "h-b", "m1", 1, []byte{0, 0, 0, 0}); err != nil {
			return err
		}
		return storage.UpsertEmbedding(ctx, tx, "h-b", "m1", 2, []byte{9, 9, 9, 9, 9, 9, 9, 9})
	})
	if dim, err := storage.EmbeddingDimensions(ctx, r, "m1"); err != nil || dim != 2 {
		t.Fatalf("dimensions = %d, %v", dim, err)
	}
	if blob, err := storage.EmbeddingVector(ctx, r, "h-b", "m1"); err != nil || len(blob) != 8 || blob[0] != 9 {
		t.Fatalf("vector = %v, %v", blob, err)
	}
	if _, err := storage.EmbeddingVector(ctx, r, "h-c", "m1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing vector: %v", err)
	}
	for _, tc := range []struct {
		hash, model string
		want        bool
	}{{"h-a", "m1", true}, {"h-a", "m2", false}, {"h-c", "m1", false}} {
		if got, err := storage.HasEmbedding(ctx, r, tc.hash, tc.model); err != nil || got != tc.want {
			t.Errorf("HasEmbedding(%s, %s) = %v, %v", tc.hash, tc.model, got, err)
		}
	}

	var marked bool
	var others []string
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if stale, err := storage.SetEmbeddingModel(ctx, tx, "a", "other-hash", "m1"); err != nil || stale {
			t.Errorf("a changed content must not be marked: %v %v", stale, err)
		}
		var err error
		if marked, err = storage.SetEmbeddingModel(ctx, tx, "a", "h-a", "m1"); err != nil {
			return err
		}
		others, err = storage.MarkEmbeddedByHash(ctx, tx, "m1", []string{"h-a", "h-b", "h-c"})
		return err
	})
	sort.Strings(others)
	if !marked || !slices.Equal(others, []string{"b", "d"}) {
		t.Fatalf("marked a = %v, others = %v", marked, others)
	}
	if m, _ := storage.GetMemory(ctx, r, "d"); m.EmbeddingModel != "m1" {
		t.Fatalf("d embedding_model = %q", m.EmbeddingModel)
	}

	if n, err := storage.CountEmbeddedMemories(ctx, r, "m1"); err != nil || n != 3 {
		t.Fatalf("embedded = %d, %v; want 3", n, err)
	}
	if n, err := storage.CountCoveredMemories(ctx, r, "m1"); err != nil || n != 3 {
		t.Fatalf("covered = %d, %v; want 3", n, err)
	}
	var rows []storage.VectorRow
	err = storage.EachVectorRow(ctx, r, "m1", func(v *storage.VectorRow) error {
		rows = append(rows, *v)
		return nil
	})
	if err != nil || len(rows) != 3 {
		t.Fatalf("vector rows = %d, %v", len(rows), err)
	}
	for _, v := range rows {
		if v.ID == "a" && (v.Who != "me" || v.Tags != `["x"]` || len(v.Vector) != 8 || v.Vector[0] != 1) {
			t.Fatalf("row a = %+v", v)
		}
		if v.ID == "d" && v.Project != "p" {
			t.Fatalf("row d = %+v", v)
		}
	}
	stop := errors.New("stop")
	if err := storage.EachVectorRow(ctx, r, "m1", func(*storage.VectorRow) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error not returned: %v", err)
	}
	page, err := storage.ListEmbeddedMemories(ctx, r, "m1", 2, 1)
	if err != nil || len(page) != 2 || page[0].Memory.ID != "b" || page[1].Memory.ID != "d" || page[0].Dimensions != 2 {
		t.Fatalf("page = %+v, %v", page, err)
	}
}

func TestSessionQueries(t *testing.T) { testSessionQueries(t, sqliteStore(t)) }

func testSessionQueries(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()
	if _, err := storage.GetSession(ctx, r, "s1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	if _, err := storage.SessionProject(ctx, r, "s1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing session project: %v", err)
	}
	var prompt int
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.UpsertSession(ctx, tx, "s1", "claude", "", ts(0)); err != nil {
			return err
		}
		// A later upsert fills a missing project but never replaces one.
		if err := storage.UpsertSession(ctx, tx, "s1", "claude", "p1", ts(time.Second)); err != nil {
			return err
		}
		if err := storage.UpsertSession(ctx, tx, "s1", "claude", "p2", ts(time.Second)); err != nil {
			return err
		}
		if err := storage.UpsertSession(ctx, tx, "s2", "codex", "", ts(time.Minute)); err != nil {
			return err
		}
		if err := storage.RecordInjections(ctx, tx, "s1", 0, ts(0), "m1", "m2"); err != nil {
			return err
		}
		for range 2 {
			var err error
			if prompt, err = storage.BumpSessionPrompt(ctx, tx, "s1", ts(2*time.Second)); err != nil {
				return err
			}
		}
		return storage.RecordInjections(ctx, tx, "s1", prompt, ts(2*time.Second), "m2", "m3", "m3")
	})
	if prompt != 2 {
		t.Fatalf("prompt number = %d, want 2", prompt)
	}
	if p, err := storage.SessionProject(ctx, r, "s1"); err != nil || p != "p1" {
		t.Fatalf("project = %q, %v", p, err)
	}
	for _, tc := range []struct {
		after int
		want  []string
	}{{-1, []string{"m1", "m2", "m3"}}, {0, []string{"m2", "m3"}}, {2, nil}} {
		got, err := storage.InjectedSince(ctx, r, "s1", tc.after)
		sort.Strings(got)
		got = slices.Compact(got)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("injected after prompt %d = %v, %v; want %v", tc.after, got, err, tc.want)
		}
	}

	if _, _, err := storage.TranscriptContent(ctx, r, "s1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing transcript: %v", err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.EndSession(ctx, tx, "s1", "", ts(time.Hour)); err != nil {
			return err
		}
		if err := storage.SaveTranscript(ctx, tx, &storage.Transcript{SessionKey: "s1", Content: "old", Format: "text",
			Harness: "claude", Project: "p1", SourceBytes: 3, CreatedAt: ts(time.Hour)}); err != nil {
			return err
		}
		return storage.SaveTranscript(ctx, tx, &storage.Transcript{SessionKey: "s1", Content: "hello", Format: "jsonl",
			Harness: "other", Project: "p9", SourceBytes: 50, Truncated: true, CreatedAt: ts(time.Hour)})
	})
	content, project, err := storage.TranscriptContent(ctx, r, "s1")
	if err != nil || content != "hello" || project != "p1" {
		t.Fatalf("transcript = %q %q %v", content, project, err)
	}
	s, err := storage.GetSession(ctx, r, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if s.Project != "p1" || s.EndedAt != ts(time.Hour) || s.EndReason != "" || s.PromptCount != 2 || s.Injections != 4 ||
		s.TranscriptChars != 5 || s.Transcript == nil || *s.Transcript != "hello" || s.TranscriptFormat != "jsonl" || !s.Truncated {
		t.Fatalf("session = %+v", s)
	}
	all, err := storage.ListSessions(ctx, r, "", 10)
	if err != nil || len(all) != 2 || all[0].Key != "s2" || all[0].Transcript != nil || all[1].Injections != 4 {
		t.Fatalf("sessions = %+v, %v", all, err)
	}
	if mine, err := storage.ListSessions(ctx, r, "p1", 10); err != nil || len(mine) != 1 || mine[0].Key != "s1" {
		t.Fatalf("sessions of p1 = %+v, %v", mine, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error { return storage.ClearInjections(ctx, tx, "s1") })
	if got, err := storage.InjectedSince(ctx, r, "s1", -1); err != nil || len(got) != 0 {
		t.Fatalf("after clearing: %v, %v", got, err)
	}
}

func TestGraphQueries(t *testing.T) { testGraphQueries(t, sqliteStore(t)) }

func testGraphQueries(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "m1", "one", nil)
	addMemory(t, db, "m2", "two", nil)
	addMemory(t, db, "m3", "three", func(m *storage.Memory) { m.IsDeleted = true })
	var ids []string
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		for _, e := range []struct{ id, name, typ string }{
			{"e1", "Go_lang", "unknown"}, {"e2", "SQLite", "tool"}, {"e3", "100% test", "concept"},
		} {
			id, err := storage.UpsertEntity(ctx, tx, e.id, e.name, e.name, e.typ, ts(0))
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		// Upserting an existing canonical name keeps the id and takes a
		// known type over "unknown".
		id, err := storage.UpsertEntity(ctx, tx, "e9", "go_lang", "Go_lang", "language", ts(time.Second))
		if err != nil {
			return err
		}
		ids = append(ids, id)
		links := []struct{ mem, ent string }{{"m1", "e1"}, {"m1", "e2"}, {"m2", "e2"}, {"m3", "e3"}, {"m1", "e1"}}
		for i, l := range links {
			isNew, err := storage.LinkMention(ctx, tx, l.mem, l.ent, l.ent, 0.9)
			if err != nil {
				return err
			}
			if isNew != (i < 4) {
				t.Errorf("link %v new = %v", l, isNew)
			}
		}
		if _, err := storage.FindRelation(ctx, tx, "e1", "e2", "uses"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("missing relation: %v", err)
		}
		if err := storage.InsertRelation(ctx, tx, "r1", "e1", "e2", "uses", 0.4, ts(0)); err != nil {
			return err
		}
		return storage.UpdateRelation(ctx, tx, "r1", 2, 0.6, ts(time.Second))
	})
	if !slices.Equal(ids, []string{"e1", "e2", "e3", "e1"}) {
		t.Fatalf("entity ids = %v", ids)
	}
	rel, err := storage.FindRelation(ctx, r, "e1", "e2", "uses")
	if err != nil || rel.ID != "r1" || rel.Mentions != 2 || rel.Confidence != 0.6 {
		t.Fatalf("relation = %+v, %v", rel, err)
	}

	counts := func(es []storage.EntityCount) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s:%d", e.ID, e.Mentions))
		}
		return out
	}
	for _, tc := range []struct {
		names []string
		want  []string
	}{
		{[]string{"SQLite"}, []string{"e2:2"}},
		{[]string{"SQL"}, nil},  // exact names only, never a substring
		{[]string{"Go_%"}, nil}, // no wildcards either
		{[]string{"100% test", "Go_lang", "nothing"}, []string{"e1:1", "e3:1"}},
		{nil, nil},
	} {
		got, err := storage.EntitiesByName(ctx, r, tc.names)
		if err != nil || !slices.Equal(counts(got), tc.want) {
			t.Errorf("EntitiesByName(%v) = %v, %v; want %v", tc.names, counts(got), err, tc.want)
		}
	}
	for _, tc := range []struct {
		ids, want []string
	}{{[]string{"e1"}, []string{"e2:2"}}, {[]string{"e2"}, []string{"e1:1"}}, {[]string{"e1", "e2"}, nil}, {[]string{"e3"}, nil}} {
		got, err := storage.NeighborCounts(ctx, r, tc.ids, 10)
		if err != nil || !slices.Equal(counts(got), tc.want) {
			t.Errorf("NeighborCounts(%v) = %v, %v; want %v", tc.ids, counts(got), err, tc.want)
		}
	}
	// One statement for the boost: the named entities, the live memories
	// (m1, m2; m3 is a tombstone) and whether relations exist.
	named, live, rels, err := storage.NamedEntities(ctx, r, []string{"SQLite", "Go_lang", "nothing"})
	if err != nil || !slices.Equal(counts(named), []string{"e1:1", "e2:2"}) || live != 2 || !rels {
		t.Fatalf("NamedEntities = %v %d %v, %v", counts(named), live, rels, err)
	}
	if named, _, _, err := storage.NamedEntities(ctx, r, []string{"SQL"}); err != nil || len(named) != 0 {
		t.Fatalf("NamedEntities of a substring = %v, %v", named, err)
	}
	if live, most, err := storage.GraphSummary(ctx, r); err != nil || live != 2 || most != 2 {
		t.Fatalf("GraphSummary = %d %d, %v", live, most, err)
	}
	links, err := storage.LiveLinks(ctx, r, []string{"e2", "e3"}, []string{"m1", "m3", "m9"})
	if err != nil || len(links) != 1 || links[0] != (storage.Link{MemoryID: "m1", EntityID: "e2"}) {
		t.Fatalf("live links = %v, %v (m3 is a tombstone)", links, err)
	}
	least, err := storage.LeastEntityMentions(ctx, r, []string{"m1", "m2", "m9"})
	if err != nil || len(least) != 2 || least["m1"] != 1 || least["m2"] != 2 {
		t.Fatalf("least mentions = %v, %v", least, err)
	}
	ents, err := storage.ListEntities(ctx, r, "", 10)
	if err != nil || len(ents) != 3 || ents[0].ID != "e2" || ents[0].Mentions != 2 {
		t.Fatalf("entities = %+v, %v", ents, err)
	}
	if ents, err := storage.ListEntities(ctx, r, "_", 10); err != nil || len(ents) != 1 || ents[0].EntityType != "language" {
		t.Fatalf("entities named _ = %+v, %v", ents, err)
	}

	// The linker's guess never replaces a type; the pipeline's does,
	// unless it is "unknown".
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		for _, u := range []struct {
			refine    bool
			typ, want string
		}{{false, "tool", "language"}, {true, "unknown", "language"}, {true, "library", "library"}} {
			up := storage.UpsertEntity
			if u.refine {
				up = storage.RefineEntity
			}
			if id, err := up(ctx, tx, "e8", "x", "Go_lang", u.typ, ts(0)); err != nil || id != "e1" {
				return fmt.Errorf("upsert %+v: %q %v", u, id, err)
			}
			if ents, _ := storage.ListEntities(ctx, tx, "_", 1); ents[0].EntityType != u.want {
				t.Errorf("after %+v type is %s", u, ents[0].EntityType)
			}
		}
		if id, err := storage.EntityID(ctx, tx, "SQLite"); err != nil || id != "e2" {
			t.Errorf("EntityID = %q, %v", id, err)
		}
		if _, err := storage.EntityID(ctx, tx, "sqlite"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("EntityID of an unknown name: %v", err)
		}
		if err := storage.RaiseMentionConfidence(ctx, tx, "m2", "e2", 0.95); err != nil {
			return err
		}
		return storage.RaiseMentionConfidence(ctx, tx, "m1", "e2", 0.5) // lower: kept at 0.9
	})
	var conf2, conf1 float64
	if err := r.QueryRowContext(ctx, `SELECT (SELECT confidence FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = 'm2')
			AND entity_rid = (SELECT rid FROM entities WHERE id = 'e2')),
		(SELECT confidence FROM memory_entity_mentions WHERE memory_rid = (SELECT rid FROM memories WHERE id = 'm1')
			AND entity_rid = (SELECT rid FROM entities WHERE id = 'e2'))`).Scan(&conf2, &conf1); err != nil {
		t.Fatal(err)
	}
	if conf2 != 0.95 || conf1 != 0.9 {
		t.Fatalf("confidences %v %v, want 0.95 and 0.9", conf2, conf1)
	}

	// Unlinking m1: e2 (also named by m2) loses a mention, e1 (named by m1
	// only) is deleted with its relation.
	var removed int64
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		var err error
		removed, err = storage.UnlinkMemory(ctx, tx, "m1")
		return err
	})
	ents, err = storage.ListEntities(ctx, r, "", 10)
	if err != nil || removed != 2 || len(ents) != 2 || ents[1].ID != "e2" || ents[1].Mentions != 1 || ents[0].ID != "e3" {
		t.Fatalf("after unlinking m1 (%d links): %+v, %v", removed, ents, err)
	}
	if _, err := storage.FindRelation(ctx, r, "e1", "e2", "uses"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the orphan's relation survived: %v", err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		var err error
		removed, err = storage.UnlinkMemory(ctx, tx, "m1") // nothing left: a no-op
		return err
	})
	if removed != 0 {
		t.Fatalf("second unlink removed %d", removed)
	}
}

func TestHintAndFullTextQueries(t *testing.T) {
	db := sqliteStore(t)
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "a", "the deploy script lives in tools", func(m *storage.Memory) { m.Project = "p" })
	addMemory(t, db, "b", "deploy on fridays is forbidden", nil)
	addMemory(t, db, "c", "deploy notes removed", func(m *storage.Memory) { m.IsDeleted = true })
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.ReplaceHeuristicHints(ctx, tx, "a", []string{"stale hint"}, ts(0)); err != nil {
			return err
		}
		if err := storage.ReplaceHeuristicHints(ctx, tx, "a", []string{"how to ship", "ship release"}, ts(0)); err != nil {
			return err
		}
		return storage.ReplaceHeuristicHints(ctx, tx, "c", []string{"ship it"}, ts(0))
	})
	for _, tc := range []struct {
		match string
		f     storage.MemoryFilter
		want  []string
	}{
		{"stale", storage.MemoryFilter{}, nil},
		{"ship", storage.MemoryFilter{}, []string{"a", "a"}},
		{"ship", storage.MemoryFilter{Project: "other"}, nil},
	} {
		hits, err := storage.MatchHints(ctx, r, tc.match, tc.f, 10)
		var got []string
		for _, h := range hits {
			got = append(got, h.MemoryID)
			if h.BM25 >= 0 {
				t.Errorf("bm25 = %v, want negative", h.BM25)
			}
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("MatchHints(%q, %+v) = %v, %v; want %v", tc.match, tc.f, got, err, tc.want)
		}
	}

	for _, tc := range []struct {
		name  string
		f     storage.MemoryFilter
		inner int
		want  []string
	}{
		{"all live", storage.MemoryFilter{}, 10, []string{"a", "b"}},
		{"project", storage.MemoryFilter{Project: "p"}, 10, []string{"a"}},
		{"deleted too", storage.MemoryFilter{IncludeDeleted: true}, 10, []string{"a", "b", "c"}},
	} {
		exact, err := storage.SearchFTS(ctx, r, "deploy", tc.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		ranked, err := storage.SearchFTSRanked(ctx, r, "deploy", tc.f, tc.inner, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, hits := range [][]storage.FTSHit{exact, ranked} {
			var got []string
			for _, h := range hits {
				got = append(got, h.Memory.ID)
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: hits = %v, want %v", tc.name, got, tc.want)
			}
		}
	}
	// The ranked search only joins the inner best matches.
	if hits, err := storage.SearchFTSRanked(ctx, r, "deploy", storage.MemoryFilter{}, 1, 10); err != nil || len(hits) > 1 {
		t.Fatalf("inner 1 gave %d hits, %v", len(hits), err)
	}
}

func TestDiagnosticAndRepairQueries(t *testing.T) {
	db := sqliteStore(t)
	ctx := context.Background()
	r := db.Reader()
	h, err := storage.ReadQueueHealth(ctx, r, ts(0), ts(0))
	if err != nil || h != (storage.QueueHealth{}) {
		t.Fatalf("empty queue = %+v, %v", h, err)
	}
	enqueue(t, db, 3, "extract", t0)
	j := lease(t, db, "w", t0.Add(time.Minute))
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		return storage.CompleteJob(ctx, tx, j, "{}", ts(time.Minute))
	})
	lease(t, db, "w", t0.Add(2*time.Minute))
	h, err = storage.ReadQueueHealth(ctx, r, ts(30*time.Second), ts(3*time.Minute))
	if err != nil || h.Pending != 1 || h.CompletedSince != 1 || h.DeadSince != 0 || h.StaleLeases != 1 || h.OldestPending == "" {
		t.Fatalf("queue = %+v, %v", h, err)
	}
	if n, err := storage.CountStaleLeases(ctx, r, ts(time.Minute)); err != nil || n != 0 {
		t.Fatalf("stale leases before the lease = %d, %v", n, err)
	}
	byStatus, err := storage.CountJobsByStatus(ctx, r)
	if err != nil || len(byStatus) != 3 || byStatus["pending"] != 1 || byStatus["leased"] != 1 || byStatus["completed"] != 1 {
		t.Fatalf("by status = %v, %v", byStatus, err)
	}

	addMemory(t, db, "a", "alpha", nil)
	addMemory(t, db, "b", "beta", func(m *storage.Memory) { m.IsDeleted, m.DeletedAt = true, ts(0) })
	if total, deleted, err := storage.MemoryCounts(ctx, r); err != nil || total != 2 || deleted != 1 {
		t.Fatalf("memory counts = %d %d %v", total, deleted, err)
	}
	if n, err := storage.CountMemoryRows(ctx, r); err != nil || n != 2 {
		t.Fatalf("memory rows = %d, %v", n, err)
	}
	if n, err := storage.CountFTSDocuments(ctx, r); err != nil || n != 2 {
		t.Fatalf("fts documents = %d, %v", n, err)
	}
	if pages, size, _, err := storage.PageStats(ctx, r); err != nil || pages == 0 || size == 0 {
		t.Fatalf("pages = %d × %d, %v", pages, size, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.CheckFTSIntegrity(ctx, tx.(storage.Tx)); err != nil {
			return err
		}
		return storage.RebuildFTS(ctx, tx.(storage.Tx))
	})

	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		for i, at := range []time.Duration{-time.Hour, time.Hour, 2 * time.Hour} {
			if err := storage.InsertHistory(ctx, tx, &storage.HistoryEvent{ID: string(rune('x' + i)), MemoryID: "a",
				Event: storage.EventRecovered, ChangedBy: "t", CreatedAt: ts(at)}); err != nil {
				return err
			}
		}
		return nil
	})
	if n, err := storage.CountHistoryEvents(ctx, r, storage.EventRecovered, ts(0)); err != nil || n != 2 {
		t.Fatalf("recovered events = %d, %v", n, err)
	}
	if n, err := storage.CountHistoryEvents(ctx, r, storage.EventDeleted, ts(-2*time.Hour)); err != nil || n != 0 {
		t.Fatalf("deleted events = %d, %v", n, err)
	}

	if d, err := storage.ReadDocumentFailures(ctx, r, ts(0)); err != nil || d != (storage.DocumentFailures{}) {
		t.Fatalf("no documents = %+v, %v", d, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		for _, d := range []*docstore.Document{
			{ID: "d1", SourceType: "text", Status: docstore.DocFailed, Error: "old failure", CreatedAt: ts(-time.Hour), UpdatedAt: ts(-time.Hour)},
			{ID: "d2", SourceType: "text", Status: docstore.DocDone, CreatedAt: ts(time.Hour)},
		} {
			if err := docstore.InsertDocument(ctx, tx, d); err != nil {
				return err
			}
		}
		return nil
	})
	if d, err := storage.ReadDocumentFailures(ctx, r, ts(0)); err != nil || !d.Any || d.Failed != 0 || d.LastError != "" {
		t.Fatalf("no recent failure = %+v, %v", d, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := docstore.InsertDocument(ctx, tx, &docstore.Document{ID: "d3", SourceType: "url", Status: docstore.DocFailed,
			Error: "fetch failed", CreatedAt: ts(time.Hour)}); err != nil {
			return err
		}
		return docstore.InsertDocument(ctx, tx, &docstore.Document{ID: "d4", SourceType: "url", Status: docstore.DocFailed,
			Error: "latest failure", CreatedAt: ts(2 * time.Hour)})
	})
	if d, err := storage.ReadDocumentFailures(ctx, r, ts(0)); err != nil || d.Failed != 2 || d.LastError != "latest failure" {
		t.Fatalf("recent failures = %+v, %v", d, err)
	}
}

func TestDedupQueries(t *testing.T) { testDedupQueries(t, sqliteStore(t)) }

func testDedupQueries(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()

	// Two clusters: x (three rows in no project, one pinned) and y (two
	// rows in project p); z is alone in its project.
	for _, m := range []struct {
		id, norm, project string
		pinned            bool
	}{
		{"x1", "x", "", false}, {"x2", "x", "", false}, {"x3", "x", "", false}, {"x4", "x", "", true},
		{"y1", "y", "p", false}, {"y2", "y", "p", false}, {"z1", "y", "q", false},
	} {
		addMemory(t, db, m.id, m.norm, func(mm *storage.Memory) { mm.Project, mm.Pinned = m.project, m.pinned })
	}
	clusters, excess, err := storage.DedupClusterStats(ctx, r, strings.ToLower)
	if err != nil || clusters != 2 || excess != 3 {
		t.Fatalf("clusters = %d, excess = %d, %v", clusters, excess, err)
	}
	found, err := storage.DedupClusters(ctx, r, strings.ToLower, 10)
	if err != nil || len(found) != 2 {
		t.Fatalf("clusters = %+v, %v", found, err)
	}
	for i, want := range []storage.DedupCluster{{Normalized: "x", Size: 3}, {Normalized: "y", Project: "p", Size: 2}} {
		if got := found[i]; got.Normalized != want.Normalized || got.Project != want.Project || got.Size != want.Size || len(got.RIDs) != want.Size {
			t.Errorf("cluster %d = %+v, want %+v", i, got, want)
		}
	}
	if found, err := storage.DedupClusters(ctx, r, strings.ToLower, 1); err != nil || len(found) != 1 {
		t.Fatalf("limited clusters = %+v, %v", found, err)
	}
	// A member whose content changed since the cluster was found is no
	// longer in it.
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		_, err := tx.ExecContext(ctx, `UPDATE memories SET content = 'X2 changed' WHERE id = 'x2'`)
		return err
	})
	ms, err := storage.DedupClusterMembers(ctx, r, strings.ToLower, found[0])
	if err != nil || len(ms) != 2 || ms[0].ID != "x1" || ms[1].ID != "x3" {
		t.Fatalf("members = %v, %v", ms, err)
	}
}

func TestMemoryJobDocumentAndInjectQueries(t *testing.T) {
	testMemoryJobDocumentAndInjectQueries(t, sqliteStore(t))
}

func testMemoryJobDocumentAndInjectQueries(t *testing.T, db *store) {
	ctx := context.Background()
	r := db.Reader()
	addMemory(t, db, "k", "keyed", func(m *storage.Memory) { m.IdempotencyKey = "key-1" })
	addMemory(t, db, "kd", "keyed deleted", func(m *storage.Memory) { m.IdempotencyKey, m.IsDeleted = "key-2", true })
	for i, id := range []string{"c1", "c2", "c3"} {
		addMemory(t, db, id, id, func(m *storage.Memory) {
			m.SourceType, m.SourceID, m.IsDeleted = "chunk", "g", i == 1
			m.Importance, m.Pinned = float64(i)/4, i == 0
			m.CreatedAt, m.UpdatedAt = ts(time.Duration(i+1)*time.Minute), ts(time.Duration(i)*time.Second)
		})
	}
	if m, err := storage.FindLiveByIdempotencyKey(ctx, r, "key-1"); err != nil || m.ID != "k" {
		t.Fatalf("by key = %v, %v", m, err)
	}
	if _, err := storage.FindLiveByIdempotencyKey(ctx, r, "key-2"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}
	if ids, err := storage.ChunkGroupIDs(ctx, r, "g"); err != nil || !slices.Equal(ids, []string{"c1", "c3"}) {
		t.Fatalf("group = %v, %v", ids, err)
	}
	ranked, err := storage.ListMemoriesByRank(ctx, r, storage.MemoryFilter{SourceType: "chunk"}, 10)
	if err != nil || len(ranked) != 2 || ranked[0].ID != "c1" || ranked[1].ID != "c3" {
		t.Fatalf("by rank = %v, %v", ranked, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := storage.MarkExtracted(ctx, tx, "k", "llm"); err != nil {
			return err
		}
		if err := storage.RecordAccess(ctx, tx, ts(time.Hour), []string{"k", "c1"}); err != nil {
			return err
		}
		return storage.RecordAccess(ctx, tx, ts(2*time.Hour), []string{"k"})
	})
	m, _ := storage.GetMemory(ctx, r, "k")
	if m.ExtractionStatus != "completed" || m.ExtractionModel != "llm" || m.AccessCount != 2 || m.LastAccessed != ts(2*time.Hour) || m.Version != 1 {
		t.Fatalf("k = %+v", m)
	}

	var first, again, other string
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		var err error
		if first, err = storage.EnqueueJobOnce(ctx, tx, "j1", "session_extract", `{"s":1}`, 3, ts(0)); err != nil {
			return err
		}
		if again, err = storage.EnqueueJobOnce(ctx, tx, "j2", "session_extract", `{"s":1}`, 3, ts(0)); err != nil {
			return err
		}
		if other, err = storage.EnqueueJobOnce(ctx, tx, "j3", "session_extract", `{"s":2}`, 3, ts(0)); err != nil {
			return err
		}
		return storage.SetJobResult(ctx, tx, "j1", `{"ok":true}`)
	})
	if first != "j1" || again != "j1" || other != "j3" {
		t.Fatalf("job ids = %s %s %s", first, again, other)
	}
	if j, err := storage.GetJob(ctx, r, "j1"); err != nil || j.Result != `{"ok":true}` || j.Status != storage.JobPending {
		t.Fatalf("job = %+v, %v", j, err)
	}
	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		for i, st := range []string{storage.ProposalPending, storage.ProposalPending, storage.ProposalSkipped} {
			if err := storage.InsertProposal(ctx, tx, &storage.Proposal{ID: string(rune('a' + i)), JobID: "j1", SourceMemoryID: "k",
				Action: "add", Fact: "f", State: st, CreatedAt: ts(0)}); err != nil {
				return err
			}
		}
		return nil
	})
	if n, err := storage.CountProposals(ctx, r, storage.ProposalPending); err != nil || n != 2 {
		t.Fatalf("pending proposals = %d, %v", n, err)
	}

	write(t, db, func(ctx context.Context, tx storage.Querier) error {
		if err := docstore.InsertDocument(ctx, tx, &docstore.Document{ID: "doc", SourceType: "text", CreatedAt: ts(0)}); err != nil {
			return err
		}
		for i, id := range []string{"c3", "c2", "c1"} {
			if err := docstore.LinkDocumentChunk(ctx, tx, "doc", id, i); err != nil {
				return err
			}
		}
		return nil
	})
	chunks, err := docstore.DocumentChunks(ctx, r, "doc")
	if err != nil || len(chunks) != 2 || chunks[0].MemoryID != "c3" || chunks[1].ChunkIndex != 2 || chunks[1].Content != "c1" {
		t.Fatalf("chunks = %+v, %v", chunks, err)
	}

	addMemory(t, db, "p1", "in p", func(m *storage.Memory) { m.Project, m.CreatedAt = "p", ts(time.Hour) })
	addMemory(t, db, "q1", "in q", func(m *storage.Memory) { m.Project, m.Pinned, m.CreatedAt = "q", true, ts(2*time.Hour) })
	for _, tc := range []struct {
		scope      storage.ProjectScope
		pinnedOnly bool
		limit      int
		want       []string
	}{
		{storage.ProjectScope{Project: "p"}, false, 10, []string{"p1", "c3", "c1", "k"}},
		{storage.ProjectScope{Project: "p"}, false, 1, []string{"p1"}},
		{storage.ProjectScope{}, false, 10, []string{"c3", "c1", "k"}},
		{storage.ProjectScope{All: true}, true, 10, []string{"q1", "c1"}},
		{storage.ProjectScope{Project: "p"}, true, 10, []string{"c1"}},
	} {
		rows, err := storage.InjectCandidates(ctx, r, tc.scope, tc.pinnedOnly, tc.limit)
		var got []string
		for _, c := range rows {
			got = append(got, c.ID)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("InjectCandidates(%+v, pinned %v) = %v, %v; want %v", tc.scope, tc.pinnedOnly, got, err, tc.want)
		}
	}
}
