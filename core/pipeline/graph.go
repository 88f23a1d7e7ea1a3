package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"

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
	Skipped         int    `json:"skipped"` // names too short or empty
	Error           string `json:"error,omitempty"`
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
// Skipped (and so are relations touching them).
func (s *Pipeline) PersistGraph(ctx context.Context, memoryID string, res extract.ExtractionResult) (GraphStats, error) {
	var st GraphStats
	nodes := map[string]*graphNode{}
	var order []string
	add := func(name, typ string, conf float64) string {
		canon := core.CanonicalEntityName(name)
		if utf8.RuneCountInString(canon) < core.GraphMinNameRunes {
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
		conf := core.Clamp01(e.Confidence)
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
		add(m.Name, m.Type, core.GraphMentionConf)
	}
	if len(order) == 0 {
		return st, nil
	}

	err := s.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error {
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
	core.HubCache.Delete(s.svc.DB())
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
		err = s.svc.DB().WriteTx(ctx, func(tx *storage.Tx) error {
			return storage.SetJobResult(ctx, tx, job.ID, string(b))
		})
	}
	if err != nil {
		s.svc.Logger().Warn("graph stats not recorded in the job", "job", job.ID, "err", err)
	}
}
