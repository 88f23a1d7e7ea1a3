package core

import (
	"context"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Constraints in the dampening's resolution boost (constraints always
// surface: docs/design/evolution.md, "Decisions and constraints", and
// docs/design/search.md, "Resolution boost"). The resolution stage of
// dampening (recall.go) multiplies decisions and constraints by
// resolutionBoost when their type says so and their text is 50
// characters or more. A memory holding a live constraint attribute (a
// decision the linker read, "we decided to use sqlc for the data layer",
// or one the model's structural classification filed as a constraint)
// gets the same boost whatever its type and length: a short decision is
// still a decision. It never stacks with the type's boost, and it
// replaces the lighter temporal-anchor boost.

// resolutionBoost is the resolution stage's multiplier for decisions and
// constraints; temporalBoost its lighter one for temporal anchors.
const (
	resolutionBoost = 1.2
	temporalBoost   = 1.1
)

// constraintCandidates returns which candidates hold a live constraint
// attribute (one indexed query; nil on error, which only loses the
// boost).
func (s *Service) constraintCandidates(ctx context.Context, cands map[string]*candidate) map[string]bool {
	ids := make([]string, 0, len(cands))
	for id, c := range cands {
		if c.mem != nil {
			ids = append(ids, id)
		}
	}
	got, err := storage.ConstraintMemories(ctx, s.db.Reader(), ids)
	if err != nil {
		s.log.Log(ctx, skipLevel(ctx, err), "constraint boost skipped", "err", err)
		return nil
	}
	return got
}

// constraintBoost is the multiplier that brings a constrained candidate's
// resolution boost to resolutionBoost, on top of what dampening gave it by
// its type and text (1 when it is not constrained or already has it).
func constraintBoost(c *candidate, constrained bool) float64 {
	if !constrained || c.mem == nil {
		return 1
	}
	if text.CharCount(c.mem.Content) >= 50 {
		switch {
		case c.mem.Type == "decision" || c.mem.Type == "constraint":
			return 1
		case hasTemporalAnchor(c.mem.Content):
			return resolutionBoost / temporalBoost
		}
	}
	return resolutionBoost
}
