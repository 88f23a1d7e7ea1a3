package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
)

// Knowledge graph (seed 001 "Knowledge Graph", seed 003 graph persistence,
// "Graph-Augmented Search" and hub dampening). The graph is an
// augmentation layer: persistence runs in its own transaction after the
// facts commit and its failure never reverts them; lookups at recall time
// are deadline-bounded and any error means "no boost".
//
// Counting: entities.mentions is the number of distinct memories linked to
// the entity (it grows only when a new memory_entity_mentions row is
// inserted), so re-processing a memory is idempotent and the retention
// worker can decrement it per purged link. A relation's mentions and
// running-average confidence grow when it is observed again, except when
// the same memory is re-processed (both ends were already linked to it).
// Purging the links of tombstoned memories (and orphaned entities) is left
// to the retention sweep (core/retention.go, step 1); until a tombstone's
// window ends, recall's joins ignore deleted memories.

// Graph limits (seed 003).
const (
	GraphMinNameRunes   = 4   // shorter canonical names are not entities
	graphEntityHits     = 20  // entities matched by the query's terms
	graphNeighbors      = 50  // one-hop neighbours
	graphMemoryLimit    = 200 // linked memories boosted
	graphLookupDeadline = 50 * time.Millisecond
	GraphMentionConf    = 0.5 // confidence of a bare mention (no triple)
	hubPercentile       = 0.9
	hubPenalty          = 0.7
	hubCacheTTL         = 5 * time.Second
	hubMinEntities      = 10 // below this a P90 singles out nothing meaningful
)

// graphBoost returns the candidates linked to entities the query names:
// entities whose canonical name contains a query term (most mentioned
// first, 20), expanded one hop through relations both ways (50), joined to
// the live candidates that mention them (200). Only ids already among the
// candidates are returned. Bounded by a 50 ms deadline; an error or a
// timeout means no boost.
func (s *Service) graphBoost(ctx context.Context, query string, cands map[string]*candidate) map[string]bool {
	terms := text.QueryTerms(query)
	if len(terms) == 0 || len(cands) == 0 {
		return nil
	}
	deadline := time.Now().Add(graphLookupDeadline)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	out, err := s.graphLookup(ctx, terms, cands, deadline)
	if err != nil {
		s.log.Warn("graph boost skipped", "err", err)
		return nil
	}
	return out
}

var errGraphDeadline = errors.New("graph lookup deadline exceeded")

func (s *Service) graphLookup(ctx context.Context, terms []string, cands map[string]*candidate, deadline time.Time) (map[string]bool, error) {
	r := s.db.Reader()
	// 1. Entities named by the query.
	seeds, err := storage.EntitiesNamed(ctx, r, terms, graphEntityHits)
	if err != nil || len(seeds) == 0 {
		return nil, err
	}
	if time.Now().After(deadline) {
		return nil, errGraphDeadline
	}
	// 2. One hop both ways.
	hops, err := storage.EntityNeighbors(ctx, r, seeds, graphNeighbors)
	if err != nil {
		return nil, err
	}
	if time.Now().After(deadline) {
		return nil, errGraphDeadline
	}
	ents := slices.Compact(slices.Sorted(slices.Values(append(seeds, hops...))))
	// 3. Live candidates mentioning them.
	var ids []string
	for id, c := range cands {
		if c.mem != nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	mems, err := storage.MemoriesMentioning(ctx, r, ents, ids, graphMemoryLimit)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(mems))
	for _, id := range mems {
		out[id] = true
	}
	return out, nil
}

// hubCandidates returns the candidates every one of whose linked entities
// is a hub: its mentions above the P90 of all entities' mentions. A
// candidate with no linked entity is never a hub. Errors mean none.
func (s *Service) hubCandidates(ctx context.Context, cands map[string]*candidate) map[string]bool {
	p90, ok := s.hubThreshold(ctx)
	if !ok || len(cands) == 0 {
		return nil
	}
	var ids []string
	for id, c := range cands {
		if c.mem != nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	least, err := storage.LeastEntityMentions(ctx, s.db.Reader(), ids)
	if err != nil {
		s.log.Warn("hub dampening skipped", "err", err)
		return nil
	}
	out := map[string]bool{}
	for id, n := range least {
		if n > p90 {
			out[id] = true
		}
	}
	return out
}

type hubEntry struct {
	at  time.Time
	p90 int64
	ok  bool
}

// hubCache holds each store's P90 of entity mentions for hubCacheTTL.
var HubCache sync.Map // *storage.DB → hubEntry

// hubThreshold is the P90 of entity mention counts (nearest rank below),
// cached for a few seconds; ok is false with fewer than hubMinEntities
// entities (in a tiny graph every linked entity would look like a hub).
func (s *Service) hubThreshold(ctx context.Context) (int64, bool) {
	now := s.now()
	if v, found := HubCache.Load(s.db); found {
		if e := v.(hubEntry); now.Sub(e.at) >= 0 && now.Sub(e.at) < hubCacheTTL {
			return e.p90, e.ok
		}
	}
	r := s.db.Reader()
	n, err := storage.CountEntities(ctx, r)
	if err != nil {
		return 0, false
	}
	e := hubEntry{at: now}
	if n >= hubMinEntities {
		off := int64(hubPercentile * float64(n-1))
		if e.p90, err = storage.EntityMentionsAt(ctx, r, off); err != nil {
			return 0, false
		}
		e.ok = true
	}
	HubCache.Store(s.db, e)
	return e.p90, e.ok
}

// GraphEntity is one entity as the API lists it.
type GraphEntity struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	CanonicalName string `json:"canonical_name"`
	EntityType    string `json:"entity_type"`
	Mentions      int    `json:"mentions"`
	UpdatedAt     string `json:"updated_at"`
}

// GraphEntities lists entities whose canonical name contains q (all when q
// is empty), most mentioned first.
func (s *Service) GraphEntities(ctx context.Context, q string, limit int) ([]GraphEntity, error) {
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 1000)
	ents, err := storage.ListEntities(ctx, s.db.Reader(), CanonicalEntityName(q), limit)
	if err != nil {
		return nil, err
	}
	out := make([]GraphEntity, 0, len(ents))
	for _, e := range ents {
		out = append(out, GraphEntity{ID: e.ID, Name: e.Name, CanonicalName: e.CanonicalName, EntityType: e.EntityType,
			Mentions: e.Mentions, UpdatedAt: e.UpdatedAt})
	}
	return out, nil
}

// CanonicalEntityName is the graph's key for a name: trimmed, lower-cased,
// runs of whitespace collapsed to one space.
func CanonicalEntityName(name string) string {
	return strings.Join(strings.Fields(strings.ToLower(name)), " ")
}
