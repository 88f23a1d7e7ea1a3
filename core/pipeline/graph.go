package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// GraphStats counts what one PersistGraph call wrote.
type GraphStats struct {
	Entities        int    `json:"entities"`        // distinct entities touched
	EntitiesCreated int    `json:"entitiesCreated"` // of which new
	Mentions        int    `json:"mentions"`        // new memory links
	Relations       int    `json:"relations"`       // relations touched
	RelationsNew    int    `json:"relationsCreated"`
	Skipped         int    `json:"skipped"` // generic, too short, speaker labels, unconfirmed mentions
	Error           string `json:"error,omitempty"`
}

// graphNode is one entity named by an extraction result.
type graphNode struct {
	name, canon, typ string
	conf             float64
	refine           bool // typed by a relation triple: its type may replace the linker's
}

// PersistGraph records the entities and relations of one extraction result
// and links every entity to memoryID (none when memoryID is empty), in one
// short write transaction. It refines what the inline linker wrote at
// remember time (core/linker.go): same canonical names (entities.Canonical),
// same tables; links the linker made are kept (their confidence raised to
// the extractor's when higher), a relation triple's type replaces the
// linker's guess, and the same filters apply: generic names (stopwords,
// role words like "user", days, common words, names under
// entities.MinNameRunes) are Skipped, and so are the memory's speaker
// labels ("Caroline:" opening a turn) unless its text names them too, and
// bare mentions (the heuristic extractor's) the linker does not confirm.
// Relations touching a skipped name are skipped with it.
func (s *Pipeline) PersistGraph(ctx context.Context, memoryID string, res extract.ExtractionResult) (GraphStats, error) {
	var st GraphStats
	if !s.svc.Config().Graph.Enabled {
		return st, nil
	}
	var labels, linked map[string]bool
	if memoryID != "" {
		if m, err := storage.GetMemory(ctx, s.svc.DB().Reader(), memoryID); err == nil {
			labels, linked = map[string]bool{}, map[string]bool{}
			for _, l := range entities.SpeakerLabels(m.Content) {
				labels[l] = true
			}
			for _, e := range entities.Link(m.Content) {
				linked[e.Canonical] = !e.Tentative
			}
		}
	}
	nodes := map[string]*graphNode{}
	var order []string
	add := func(name, typ string, conf float64, mention bool) string {
		canon := core.CanonicalEntityName(name)
		if entities.Generic(canon) || labels[canon] && !linked[canon] || mention && linked != nil && !linked[canon] {
			st.Skipped++
			return ""
		}
		typ = strings.TrimSpace(typ)
		if typ == "name" {
			typ = "" // the heuristic extractor's untyped capitalised name
		}
		if n, ok := nodes[canon]; ok {
			n.conf = max(n.conf, conf)
			if n.typ == "" {
				n.typ = typ
			}
			n.refine = n.refine || !mention
			return canon
		}
		nodes[canon] = &graphNode{name: text.CollapseSpace(strings.TrimSpace(name)), canon: canon, typ: typ, conf: conf, refine: !mention}
		order = append(order, canon)
		return canon
	}
	type edge struct {
		src, dst, typ string
		conf          float64
	}
	var edges []edge
	for _, e := range res.Entities {
		conf := core.Clamp01(e.Confidence)
		a, b := add(e.Source, e.SourceType, conf, false), add(e.Target, e.TargetType, conf, false)
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
		add(m.Name, m.Type, core.GraphMentionConf, true)
	}
	if len(order) == 0 {
		return st, nil
	}

	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		st = GraphStats{Skipped: st.Skipped}
		now := s.svc.Timestamp()
		ids := map[string]string{}
		linkedBefore := map[string]bool{}
		for _, canon := range order {
			n := nodes[canon]
			typ := n.typ
			if typ == "" {
				typ = "unknown"
			}
			newID := core.NewID()
			upsert := storage.UpsertEntity
			if n.refine {
				upsert = storage.RefineEntity
			}
			id, err := upsert(ctx, tx, newID, n.name, canon, typ, now)
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
			isNew, err := storage.LinkMention(ctx, tx, memoryID, id, n.name, n.conf)
			if isNew {
				st.Mentions++
			}
			if err != nil {
				return err
			}
			if !isNew {
				linkedBefore[canon] = true
				if err := storage.RaiseMentionConfidence(ctx, tx, memoryID, id, n.conf); err != nil {
					return err
				}
			}
		}
		for _, e := range edges {
			src, dst := ids[e.src], ids[e.dst]
			rel, err := storage.FindRelation(ctx, tx, src, dst, e.typ)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				if err := storage.InsertRelation(ctx, tx, core.NewID(), src, dst, e.typ, e.conf, now); err != nil {
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
	return st, nil
}

// persistJobGraph records an extract job's graph after its facts committed,
// in its own transaction: a failure is logged and noted in the job's
// result, never reverting the facts. Shadow mode records the graph too (it
// changes no memory); frozen mutations do not.
func (s *Pipeline) persistJobGraph(ctx context.Context, job *storage.Job, srcID string, ext extract.ExtractionResult, res *ExtractJobResult) {
	if s.svc.MutationsFrozen() || len(ext.Entities)+len(ext.Mentions) == 0 {
		return
	}
	st, err := s.PersistGraph(ctx, srcID, ext)
	res.Graph = &st
	if err != nil {
		s.svc.Logger().Warn("graph persistence failed", "job", job.ID, "memory", srcID, "err", err)
		res.Warnings = append(res.Warnings, "graph persistence failed: "+err.Error())
	}
	b, err := json.Marshal(res)
	if err == nil {
		err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			return storage.SetJobResult(ctx, tx, job.ID, string(b))
		})
	}
	if err != nil {
		s.svc.Logger().Warn("graph stats not recorded in the job", "job", job.ID, "err", err)
	}
}
