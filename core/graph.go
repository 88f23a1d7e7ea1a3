package core

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/extract"

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
	graphMinNameRunes   = 4   // shorter canonical names are not entities
	graphEntityHits     = 20  // entities matched by the query's terms
	graphNeighbors      = 50  // one-hop neighbours
	graphMemoryLimit    = 200 // linked memories boosted
	graphLookupDeadline = 50 * time.Millisecond
	graphMentionConf    = 0.5 // confidence of a bare mention (no triple)
	hubPercentile       = 0.9
	hubPenalty          = 0.7
	hubCacheTTL         = 5 * time.Second
	hubMinEntities      = 10 // below this a P90 singles out nothing meaningful
)

// GraphStats counts what one PersistGraph call wrote.
type GraphStats struct {
	Entities        int    `json:"entities"`        // distinct entities touched
	EntitiesCreated int    `json:"entitiesCreated"` // of which new
	Mentions        int    `json:"mentions"`        // new memory links
	Relations       int    `json:"relations"`       // relations touched
	RelationsNew    int    `json:"relationsCreated"`
	Skipped         int    `json:"skipped"` // names too short or empty
	Error           string `json:"error,omitempty"`
}

// CanonicalEntityName is the graph's key for a name: trimmed, lower-cased,
// runs of whitespace collapsed to one space.
func CanonicalEntityName(name string) string {
	return strings.Join(strings.Fields(strings.ToLower(name)), " ")
}

// graphNode is one entity named by an extraction result.
type graphNode struct {
	name, canon, typ string
	conf             float64
}

// PersistGraph records the entities and relations of one extraction result
// and links every entity to memoryID (none when memoryID is empty), in one
// short write transaction.
// Entities whose canonical name is shorter than four characters are
// skipped (and so are relations touching them).
func (s *Service) PersistGraph(ctx context.Context, memoryID string, res extract.ExtractionResult) (GraphStats, error) {
	var st GraphStats
	nodes := map[string]*graphNode{}
	var order []string
	add := func(name, typ string, conf float64) string {
		canon := CanonicalEntityName(name)
		if utf8.RuneCountInString(canon) < graphMinNameRunes {
			st.Skipped++
			return ""
		}
		typ = strings.TrimSpace(typ)
		if n, ok := nodes[canon]; ok {
			n.conf = max(n.conf, conf)
			if n.typ == "" {
				n.typ = typ
			}
			return canon
		}
		nodes[canon] = &graphNode{name: text.CollapseSpace(strings.TrimSpace(name)), canon: canon, typ: typ, conf: conf}
		order = append(order, canon)
		return canon
	}
	type edge struct {
		src, dst, typ string
		conf          float64
	}
	var edges []edge
	for _, e := range res.Entities {
		conf := clamp01(e.Confidence)
		a, b := add(e.Source, e.SourceType, conf), add(e.Target, e.TargetType, conf)
		if a == "" || b == "" || a == b {
			continue
		}
		typ := strings.ToLower(text.CollapseSpace(strings.TrimSpace(e.Relationship)))
		if typ == "" {
			typ = "related_to"
		}
		edges = append(edges, edge{a, b, typ, conf})
	}
	for _, m := range res.Mentions {
		add(m.Name, m.Type, graphMentionConf)
	}
	if len(order) == 0 {
		return st, nil
	}

	err := s.db.WriteTx(ctx, func(tx *storage.Tx) error {
		st = GraphStats{Skipped: st.Skipped}
		now := s.timestamp()
		ids := map[string]string{}
		linkedBefore := map[string]bool{}
		for _, canon := range order {
			n := nodes[canon]
			typ := n.typ
			if typ == "" {
				typ = "unknown"
			}
			newID := NewID()
			id, err := storage.UpsertEntity(ctx, tx, newID, n.name, canon, typ, now)
			if err != nil {
				return err
			}
			ids[canon] = id
			st.Entities++
			if id == newID {
				st.EntitiesCreated++
			}
			if memoryID == "" {
				continue // no memory to link (a session transcript's entities)
			}
			isNew, err := storage.LinkMention(ctx, tx, memoryID, id, n.name, n.conf, now)
			if isNew {
				st.Mentions++
			}
			if err != nil {
				return err
			}
			if !isNew {
				linkedBefore[canon] = true
			}
		}
		for _, e := range edges {
			src, dst := ids[e.src], ids[e.dst]
			rel, err := storage.FindRelation(ctx, tx, src, dst, e.typ)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				if err := storage.InsertRelation(ctx, tx, NewID(), src, dst, e.typ, e.conf, now); err != nil {
					return err
				}
				st.RelationsNew++
			case err != nil:
				return err
			case linkedBefore[e.src] && linkedBefore[e.dst]:
				// The same memory re-processed: already counted.
			default:
				n := max(rel.Mentions, 1)
				conf := (rel.Confidence*float64(n) + e.conf) / float64(n+1)
				if err := storage.UpdateRelation(ctx, tx, rel.ID, n+1, conf, now); err != nil {
					return err
				}
			}
			st.Relations++
		}
		return nil
	})
	if err != nil {
		st.Error = err.Error()
		return st, err
	}
	hubCache.Delete(s.db)
	return st, nil
}

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
var hubCache sync.Map // *storage.DB → hubEntry

// hubThreshold is the P90 of entity mention counts (nearest rank below),
// cached for a few seconds; ok is false with fewer than hubMinEntities
// entities (in a tiny graph every linked entity would look like a hub).
func (s *Service) hubThreshold(ctx context.Context) (int64, bool) {
	now := s.now()
	if v, found := hubCache.Load(s.db); found {
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
	hubCache.Store(s.db, e)
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

// persistJobGraph records an extract job's graph after its facts committed,
// in its own transaction: a failure is logged and noted in the job's
// result, never reverting the facts. Shadow mode records the graph too (it
// changes no memory); frozen mutations do not.
func (s *Service) persistJobGraph(ctx context.Context, job *storage.Job, srcID string, ext extract.ExtractionResult, res *ExtractJobResult) {
	if s.MutationsFrozen() || len(ext.Entities)+len(ext.Mentions) == 0 {
		return
	}
	st, err := s.PersistGraph(ctx, srcID, ext)
	res.Graph = &st
	if err != nil {
		s.log.Warn("graph persistence failed", "job", job.ID, "memory", srcID, "err", err)
		res.Warnings = append(res.Warnings, "graph persistence failed: "+err.Error())
	}
	b, err := json.Marshal(res)
	if err == nil {
		err = s.db.WriteTx(ctx, func(tx *storage.Tx) error {
			return storage.SetJobResult(ctx, tx, job.ID, string(b))
		})
	}
	if err != nil {
		s.log.Warn("graph stats not recorded in the job", "job", job.ID, "err", err)
	}
}
