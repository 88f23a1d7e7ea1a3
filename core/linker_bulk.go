package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// bulkLinker makes the inline entity linker cheap for bulk writes (an
// import): within one transaction it remembers each entity it has
// looked up or written, so an entity named by many memories costs one
// upsert, not one per memory, and it adds the new links to the entities'
// mention counts once, at the end of the transaction (flush). What it
// writes is what linkEntities writes memory by memory: the same entities
// and types, links, mention counts and updated_at.
type bulkLinker struct {
	ents    map[string]bulkEntity // by canonical name
	links   []storage.MentionRow  // written at flush
	touched map[string]string     // entity id → latest updated_at
}

// bulkEntity is a known entity; id "" records that none exists.
type bulkEntity struct{ id, typ string }

type bulkLinkerKey struct{}

func withBulkLinker(ctx context.Context) (context.Context, *bulkLinker) {
	b := &bulkLinker{ents: map[string]bulkEntity{}, touched: map[string]string{}}
	return context.WithValue(ctx, bulkLinkerKey{}, b), b
}

func bulkLinkerOf(ctx context.Context) *bulkLinker {
	b, _ := ctx.Value(bulkLinkerKey{}).(*bulkLinker)
	return b
}

// entity returns the id of the entity a mention names, upserting it as
// linkEntities does; "" for a tentative mention of an unknown entity.
func (b *bulkLinker) entity(ctx context.Context, tx *storage.Tx, e entities.Mention, now string) (string, error) {
	c, known := b.ents[e.Canonical]
	if e.Tentative {
		if known {
			return c.id, nil
		}
		id, typ, err := storage.EntityIDType(ctx, tx, e.Canonical)
		if errors.Is(err, storage.ErrNotFound) {
			b.ents[e.Canonical] = bulkEntity{}
			return "", nil
		}
		if err != nil {
			return "", err
		}
		b.ents[e.Canonical] = bulkEntity{id, typ}
		return id, nil
	}
	// The upsert would only touch updated_at: the type stays unless it is
	// "unknown" and this mention knows better.
	if known && c.id != "" && (c.typ != "unknown" || e.Type == "unknown") {
		b.touched[c.id] = now
		return c.id, nil
	}
	id, typ, err := storage.UpsertEntityType(ctx, tx, NewID(), e.Name, e.Canonical, e.Type, now)
	if err != nil {
		return "", err
	}
	b.ents[e.Canonical] = bulkEntity{id, typ}
	return id, nil
}

// link records the mention, written at flush.
func (b *bulkLinker) link(memoryID, entityID, text, now string) {
	b.links = append(b.links, storage.MentionRow{MemoryID: memoryID, EntityID: entityID, Text: text, Confidence: GraphMentionConf, At: now})
	b.touched[entityID] = max(b.touched[entityID], now)
}

// flush writes the links and each entity's new mentions and updated_at.
func (b *bulkLinker) flush(ctx context.Context, tx *storage.Tx) error {
	added, err := storage.InsertMentions(ctx, tx, b.links)
	if err != nil {
		return fmt.Errorf("link entities: %w", err)
	}
	b.links = nil
	for id, at := range b.touched {
		if err := storage.AddEntityMentions(ctx, tx, id, added[id], at); err != nil {
			return fmt.Errorf("count mentions: %w", err)
		}
	}
	return nil
}
