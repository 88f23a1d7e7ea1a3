package core

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/storage"
)

// Knowledge graph (docs/design/graph.md; its use in recall:
// docs/design/search.md, "Graph boost" and "Hub dampening"). The graph is
// an augmentation layer. The inline linker
// (linker.go) writes the entities a memory names in its write
// transaction; the extraction pipeline refines them afterwards in its own
// transaction, whose failure never reverts the facts; lookups at recall
// time are deadline-bounded and any error means "no boost".
//
// Counting: entities.mentions is the number of distinct memories linked to
// the entity (it grows only when a new memory_entity_mentions row is
// inserted), so re-processing a memory is idempotent and the retention
// worker can decrement it per purged link; a memory whose content changes
// is unlinked (one mention less for each entity) and linked again. A
// relation's mentions and running-average confidence grow when it is
// observed again, except when the same memory is re-processed (both ends
// were already linked to it). Purging the links of tombstoned memories
// (and orphaned entities) is left to the retention sweep (core/ops
// retention, step 1); until a tombstone's window ends, recall's joins
// ignore deleted memories, and its links still count in mentions.

// Graph limits (docs/design/search.md, "Graph boost" and "Hub
// dampening").
const (
	graphNeighbors   = 50  // one-hop neighbours
	graphHopFactor   = 0.5 // a neighbour counts half as much as an entity the query names
	GraphMentionConf = 0.5 // confidence of a bare mention (no triple)
	hubPenalty       = 0.7
	hubMinMemories   = 20 // in a smaller store, half of it is a handful of memories
)

// graphBoost returns, for the candidates that mention an entity the query
// names, the weight of their lift (at most graph.boost_weight). An entity
// counts only when the query names it exactly (a word or a run of two or
// three words equal to its canonical name, never a substring), weighted by
// its rarity (rarity below): an entity half the store mentions lifts
// nothing. Entities one relation away from a named one count at half their
// own rarity. A candidate's weight combines its entities' as independent
// evidence, 1 − Π(1 − wᵢ), times boost_weight. Only candidates already
// found by the keyword or vector leg are considered: the boost re-ranks,
// it never adds a memory. Bounded by graph.boost_timeout; an error or a
// timeout means no boost.
func (s *Service) graphBoost(ctx context.Context, query string, cands map[string]*candidate) map[string]float64 {
	g := s.cfg.Graph
	if !g.Enabled || g.BoostWeight <= 0 || len(cands) == 0 {
		return nil
	}
	keys := entities.QueryKeys(query)
	if len(keys) == 0 {
		return nil
	}
	timeout := g.BoostTimeout.D()
	if timeout <= 0 {
		timeout = config.DefaultGraphBoostTimeout
	}
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	out, err := s.graphLookup(ctx, keys, cands, deadline)
	if err != nil {
		s.log.Log(ctx, skipLevel(ctx, err), "graph boost skipped", "err", err)
		return nil
	}
	for id, w := range out {
		out[id] = g.BoostWeight * w
	}
	return out
}

var errGraphDeadline = errors.New("graph lookup deadline exceeded")

// rarity maps an entity mentioned by df of n memories to [0,1]:
// log(n/2df)/log(n/2), which is 1 for an entity a single memory mentions
// and falls with log(1/df) to 0 when half the store mentions it (and
// stays 0 beyond).
func rarity(df, n int64) float64 {
	if df <= 0 || n <= 2 {
		return 0
	}
	return Clamp01(math.Log(float64(n)/(2*float64(df))) / math.Log(float64(n)/2))
}

// graphLookup returns each candidate's combined entity weight in [0,1].
func (s *Service) graphLookup(ctx context.Context, keys []string, cands map[string]*candidate, deadline time.Time) (map[string]float64, error) {
	r := s.db.Reader()
	// 1. Entities the query names (and the store's size, in one statement).
	named, n, relations, err := storage.NamedEntities(ctx, r, keys)
	if err != nil || len(named) == 0 {
		return nil, err
	}
	weight := map[string]float64{}
	seeds := make([]string, 0, len(named))
	for _, e := range named {
		seeds = append(seeds, e.ID)
		if w := rarity(e.Mentions, n); w > 0 {
			weight[e.ID] = w
		}
	}
	if time.Now().After(deadline) {
		return nil, errGraphDeadline
	}
	// 2. One hop both ways, for multi-hop questions ("the city where
	// Oliver's vet works"): neighbours count half.
	if relations {
		hops, err := storage.NeighborCounts(ctx, r, seeds, graphNeighbors)
		if err != nil {
			return nil, err
		}
		for _, e := range hops {
			if w := graphHopFactor * rarity(e.Mentions, n); w > weight[e.ID] {
				weight[e.ID] = w
			}
		}
	}
	if len(weight) == 0 {
		return nil, nil
	}
	if time.Now().After(deadline) {
		return nil, errGraphDeadline
	}
	// 3. Live candidates mentioning them.
	ents := make([]string, 0, len(weight))
	for id := range weight {
		ents = append(ents, id)
	}
	ids := make([]string, 0, len(cands))
	for id, c := range cands {
		if c.mem != nil {
			ids = append(ids, id)
		}
	}
	links, err := storage.LiveLinks(ctx, r, ents, ids)
	if err != nil {
		return nil, err
	}
	miss := map[string]float64{} // Π(1 − wᵢ) per memory
	for _, l := range links {
		if _, ok := miss[l.MemoryID]; !ok {
			miss[l.MemoryID] = 1
		}
		miss[l.MemoryID] *= 1 - weight[l.EntityID]
	}
	out := make(map[string]float64, len(miss))
	for id, m := range miss {
		if w := 1 - m; w > 0 {
			out[id] = w
		}
	}
	return out, nil
}

// hubCandidates returns the candidates every one of whose linked entities
// is a hub: an entity mentioned by at least half the live memories (the
// entities the boost finds too common to count). A candidate with no
// linked entity is never a hub, and neither is one linked to an entity the
// query names: hub dampening keeps entities that are everywhere from
// crowding out what the query targets, and here the query targets the
// hub. Stores of fewer than hubMinMemories memories have no hubs. Errors
// mean none.
//
// Signet's design calls a hub any entity above the 90th percentile of
// entity mention counts. Mention counts are long-tailed (most entities are
// named once), so that makes a hub of nearly every entity named four or
// five times: on the LoCoMo dev set it cost 1.9 points of R@10 (codes 1-4)
// against no graph at all, 1.4 with the query-named exemption.
func (s *Service) hubCandidates(ctx context.Context, query string, cands map[string]*candidate) map[string]bool {
	if !s.cfg.Graph.Enabled || len(cands) == 0 {
		return nil
	}
	r := s.db.Reader()
	live, most, err := storage.GraphSummary(ctx, r)
	if err != nil || live < hubMinMemories || 2*most < live {
		return nil // no entity is a hub: the common case, one cheap statement
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
	least, err := storage.LeastEntityMentions(ctx, r, ids)
	if err != nil {
		s.log.Log(ctx, skipLevel(ctx, err), "hub dampening skipped", "err", err)
		return nil
	}
	out := map[string]bool{}
	for id, n := range least {
		if 2*n >= live {
			out[id] = true
		}
	}
	if len(out) == 0 {
		return out
	}
	named, err := storage.EntitiesByName(ctx, r, entities.QueryKeys(query))
	if err != nil || len(named) == 0 {
		return out
	}
	ents := make([]string, len(named))
	for i, e := range named {
		ents[i] = e.ID
	}
	hubs := make([]string, 0, len(out))
	for id := range out {
		hubs = append(hubs, id)
	}
	links, err := storage.LiveLinks(ctx, r, ents, hubs)
	if err != nil {
		s.log.Log(ctx, skipLevel(ctx, err), "hub dampening: named entities not checked", "err", err)
	}
	for _, l := range links {
		delete(out, l.MemoryID)
	}
	return out
}

// CanonicalEntityName is the graph's key for a name: trimmed, lower-cased,
// runs of whitespace collapsed to one space (entities.Canonical).
func CanonicalEntityName(name string) string {
	return entities.Canonical(name)
}

// skipLevel is the log level of a skipped recall step: DEBUG when it ran
// out of its time budget or its request went away (expected under load;
// the recall goes on without it), WARN for a real failure.
func skipLevel(ctx context.Context, err error) slog.Level {
	if ctx.Err() != nil || errors.Is(err, errGraphDeadline) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}
