package storage_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/storage"
)

// LiveLinks returns what the plain join returns, in its order (memory id,
// then entity rid: recall multiplies a memory's entity weights in that
// order), with a hub entity linked from every memory, deleted memories,
// and ids that name nothing.
func TestLiveLinksAsThePlainJoin(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "l.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(5, 6))
	const nm, ne = 300, 40
	var ms []*storage.Memory
	for i := range nm {
		ms = append(ms, &storage.Memory{ID: fmt.Sprintf("m%03d", (i*7919)%nm), Type: "fact", Content: fmt.Sprintf("memory %d", i),
			ContentHash: fmt.Sprintf("%064x", i), SourceType: "manual", CreatedAt: "2026-01-01T00:00:00.000Z",
			UpdatedAt: "2026-01-01T00:00:00.000Z", UpdatedBy: "t"})
	}
	var ents []storage.NewEntity
	for i := range ne {
		ents = append(ents, storage.NewEntity{ID: fmt.Sprintf("e%02d", (i*17)%ne), Name: fmt.Sprintf("E%d", i), Canonical: fmt.Sprintf("e%d", i), Type: "unknown"})
	}
	err = db.WriteTx(ctx, func(tx storage.Tx) error {
		rids, err := storage.InsertMemories(ctx, tx, ms)
		if err != nil {
			return err
		}
		erids, err := storage.InsertEntities(ctx, tx, ents, "2026-01-01T00:00:00.000Z")
		if err != nil {
			return err
		}
		var links []storage.MentionRow
		for _, rid := range rids {
			links = append(links, storage.MentionRow{MemoryRID: rid, EntityRID: erids[0], Text: "hub", Confidence: 1})
			for _, e := range r.Perm(ne - 1)[:r.IntN(6)] {
				links = append(links, storage.MentionRow{MemoryRID: rid, EntityRID: erids[e+1], Text: "x", Confidence: 1})
			}
		}
		if err := storage.InsertMentions(ctx, tx, links); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE memories SET is_deleted = 1 WHERE rid % 9 = 0`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	pick := func(n int, name func(int) string, of int) []string {
		var out []string
		for _, i := range r.Perm(of)[:min(n, of)] {
			out = append(out, name(i))
		}
		return append(out, "nothing")
	}
	for trial := range 50 {
		memoryIDs := pick(1+r.IntN(150), func(i int) string { return fmt.Sprintf("m%03d", i) }, nm)
		entityIDs := pick(1+r.IntN(5), func(i int) string { return fmt.Sprintf("e%02d", i) }, ne)
		if trial%5 == 0 {
			entityIDs = append(entityIDs, ents[0].ID) // the hub
		}
		got, err := storage.LiveLinks(ctx, db.Reader(), entityIDs, memoryIDs)
		if err != nil {
			t.Fatal(err)
		}
		want := plainLinks(t, db, entityIDs, memoryIDs)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: LiveLinks\n%v\nthe plain join\n%v", trial, got, want)
		}
		if trial == 0 && len(want) == 0 {
			t.Fatal("the first trial found no link: the test checks nothing")
		}
	}
}

func plainLinks(t *testing.T, db *storage.DB, entityIDs, memoryIDs []string) []storage.Link {
	t.Helper()
	list := func(ids []string) string {
		s := "["
		for i, id := range ids {
			if i > 0 {
				s += ","
			}
			s += `"` + id + `"`
		}
		return s + "]"
	}
	rows, err := db.Reader().QueryContext(context.Background(), `SELECT m.id, e.id FROM memories m
		JOIN memory_entity_mentions mem ON mem.memory_rid = m.rid
		JOIN entities e ON e.rid = mem.entity_rid
		WHERE m.id IN (SELECT value FROM json_each(?2)) AND m.is_deleted = 0
		AND e.id IN (SELECT value FROM json_each(?1)) ORDER BY m.id, e.rid`, list(entityIDs), list(memoryIDs))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storage.Link
	for rows.Next() {
		var l storage.Link
		if err := rows.Scan(&l.MemoryID, &l.EntityID); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}
