package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// linkBatch is the inline entity linker for bulk writes (an import): it
// links the memories of one batch, in tx, with a handful of statements
// instead of an upsert and an insert per mention. rids[i] is the row of
// the batch's i-th memory and mentions[i] what entities.Link found in its
// content, computed before the transaction. What it writes is what
// linkEntities writes memory by memory, in order: the same entities,
// names and types (a later mention naming the type of an "unknown"
// entity), the same links and mention counts (one per memory however
// often it names an entity), tentative mentions linked only to entities
// known by then, and every linked entity's updated_at set to now.
func (s *Service) linkBatch(ctx context.Context, tx storage.Tx, rids []int64, mentions [][]entities.Mention, now string) error {
	if !s.cfg.Graph.Enabled {
		return nil
	}
	var names []string
	seenName := map[string]bool{}
	for _, ms := range mentions {
		for _, e := range ms {
			if !seenName[e.Canonical] {
				seenName[e.Canonical] = true
				names = append(names, e.Canonical)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	// In key order, the lookups and writes below walk each index once
	// instead of jumping about it.
	slices.Sort(names)
	known, err := storage.EntitiesByCanonical(ctx, tx, names)
	if err != nil {
		return fmt.Errorf("link entities: %w", err)
	}
	// What the batch does to each entity it names.
	type entityState struct {
		ref     storage.EntityRef // RID 0 for an entity the batch creates
		fresh   int               // index in fresh when the batch creates it, else -1
		exists  bool
		typ     string
		retyped bool
		added   int
	}
	state := make(map[string]*entityState, len(names))
	var fresh []storage.NewEntity
	type link struct {
		memory int
		entity *entityState
		text   string
	}
	var links []link
	linked := map[*entityState]bool{}
	for i, ms := range mentions {
		clear(linked)
		for _, e := range ms {
			st := state[e.Canonical]
			if st == nil {
				ref, ok := known[e.Canonical]
				st = &entityState{ref: ref, fresh: -1, exists: ok, typ: ref.Type}
				state[e.Canonical] = st
			}
			switch {
			case e.Tentative && !st.exists:
				continue // names only an entity already known
			case e.Tentative:
			case !st.exists:
				st.exists, st.fresh, st.typ = true, len(fresh), e.Type
				fresh = append(fresh, storage.NewEntity{ID: NewID(), Name: e.Name, Canonical: e.Canonical, Type: e.Type})
			case st.typ == "unknown" && e.Type != "unknown":
				st.typ = e.Type
				if st.fresh >= 0 {
					fresh[st.fresh].Type = e.Type
				} else {
					st.retyped = true
				}
			}
			if linked[st] {
				continue // the same memory naming it again
			}
			linked[st] = true
			st.added++
			links = append(links, link{memory: i, entity: st, text: e.Text()})
		}
	}
	for _, st := range state {
		if st.fresh >= 0 {
			fresh[st.fresh].Mentions = st.added
		}
	}
	// New entities in canonical order too; pos maps a fresh index to its
	// place in that order.
	order := make([]int, len(fresh))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(fresh[a].Canonical, fresh[b].Canonical) })
	sorted := make([]storage.NewEntity, len(fresh))
	pos := make([]int, len(fresh))
	for p, i := range order {
		sorted[p], pos[i] = fresh[i], p
	}
	freshRIDs, err := storage.InsertEntities(ctx, tx, sorted, now)
	if err != nil {
		return fmt.Errorf("link entities: %w", err)
	}
	var touches []storage.EntityTouch
	for _, name := range names {
		st := state[name]
		if st.fresh >= 0 {
			st.ref.RID = freshRIDs[pos[st.fresh]]
			continue
		}
		if !st.exists || (st.added == 0 && !st.retyped) {
			continue
		}
		t := storage.EntityTouch{RID: st.ref.RID, Added: st.added}
		if st.retyped {
			t.Type = st.typ
		}
		touches = append(touches, t)
	}
	slices.SortFunc(touches, func(a, b storage.EntityTouch) int { return cmp.Compare(a.RID, b.RID) })
	if err := storage.TouchEntities(ctx, tx, touches, now); err != nil {
		return fmt.Errorf("count mentions: %w", err)
	}
	rows := make([]storage.MentionRow, len(links))
	for i, l := range links {
		rows[i] = storage.MentionRow{MemoryRID: rids[l.memory], EntityRID: l.entity.ref.RID, Text: l.text, Confidence: GraphMentionConf}
	}
	if err := storage.InsertMentions(ctx, tx, rows); err != nil {
		return fmt.Errorf("link entities: %w", err)
	}
	return nil
}
