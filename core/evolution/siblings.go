package evolution

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Retroactive supersession across sibling attributes
// (docs/design/evolution.md, "Supersession"). A new
// attribute of an entity's aspect ("staging · versions · mysql version =
// 8") does not replace a sibling with another name ("postgres version =
// 14") by itself: staging may well run both. The contradiction detectors
// decide, in precision order:
//   - clear: a sentence of the new memory names the sibling (its
//     attribute's own word or its value) and the syntactic detector
//     (extract.DetectContradiction: a negation on one side, or an antonym
//     pair) finds it contradicts the sibling's memory ("staging runs MySQL
//     8. Staging no longer runs Postgres."). The sibling's attribute is
//     superseded in the write transaction, and its memory retired when it
//     holds no other live fact, as for a replaced value;
//   - ambiguous: only the memory as a whole contradicts the sibling's (a
//     negation in a sentence that names something else, and that clearly
//     contradicts no other sibling). An UPDATE proposal from the
//     new memory to the sibling's is recorded for review; approving it
//     supersedes the sibling with the new memory (core/pipeline/supersede.go);
//   - nothing else is touched. With a model provider, the structural
//     classification job (core/pipeline/classify_job.go) also asks the model
//     about siblings sharing enough words.
// No model is called here: this runs inside the remember transaction.

// siblingLimit bounds the siblings one new attribute is checked against.
const siblingLimit = 20

// siblingGeneric are attribute-name words too common to say which sibling
// a sentence is about.
var siblingGeneric = map[string]bool{"version": true, "port": true, "platform": true, "owner": true, "limit": true,
	"per": true, "value": true, "schedule": true, "retention": true, "expiry": true, "validity": true, "cache": true,
	"lifetime": true, "duration": true, "choice": true, "second": true, "minute": true, "hour": true, "day": true}

var sentenceSplit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!;]+(?:\s+|$)|\n+`) })

// siblingContradictions checks m's new attributes against their live
// siblings. It returns the siblings' attributes to supersede (clear
// contradictions) and records review proposals for the ambiguous ones.
func (t Tx) siblingContradictions(ctx context.Context, m *storage.Memory, slot string, attrs []entities.Attribute) ([]*storage.AttributeRow, error) {
	if len(attrs) == 0 {
		return nil, nil
	}
	names := map[[2]string]bool{}
	for _, a := range attrs {
		names[[2]string{a.Entity, a.Name}] = true
	}
	sentences := sentenceSplit().Split(m.Content, -1)
	var sibs []*storage.SiblingRow
	seen := map[string]bool{}
	for _, a := range attrs {
		rows, err := storage.LiveSiblings(ctx, t.Tx, slot, a.Entity, a.Aspect, m.ID, siblingLimit)
		if err != nil {
			return nil, err
		}
		for _, sib := range rows {
			if !seen[sib.ID] && !names[[2]string{sib.Entity, sib.Name}] { // a same-named one is the direct path's
				seen[sib.ID] = true
				sibs = append(sibs, sib)
			}
		}
	}
	// Clear contradictions first; a sentence that clearly contradicts
	// one sibling is explained and raises no doubt about the others.
	var clear []*storage.AttributeRow
	explained := map[int]bool{}
	hit := map[string]bool{}
	for _, sib := range sibs {
		if i, why, ok := clearContradiction(sentences, sib); ok {
			explained[i], hit[sib.ID] = true, true
			row := sib.AttributeRow
			clear = append(clear, &row)
			t.Log.Debug("sibling contradiction", "memory", m.ID, "sibling", sib.MemoryID, "why", why)
		}
	}
	var rest []string
	for i, sent := range sentences {
		if !explained[i] {
			rest = append(rest, sent)
		}
	}
	unexplained := strings.Join(rest, ". ")
	proposed := map[string]bool{}
	for _, sib := range sibs {
		if hit[sib.ID] || proposed[sib.MemoryID] {
			continue
		}
		risk, why := extract.DetectContradiction(unexplained, sib.Content)
		if !risk {
			continue
		}
		proposed[sib.MemoryID] = true
		if err := t.proposeSiblingReview(ctx, m, sib, why); err != nil {
			return nil, err
		}
	}
	return clear, nil
}

// clearContradiction reports which sentence of the new memory names the
// sibling and contradicts its memory, if one does.
func clearContradiction(sentences []string, sib *storage.SiblingRow) (int, string, bool) {
	terms := siblingTerms(sib)
	if len(terms) == 0 {
		return 0, "", false
	}
	for i, sent := range sentences {
		words := map[string]bool{}
		for _, w := range text.QueryTerms(sent) {
			words[w] = true
		}
		named := false
		for _, t := range terms {
			if words[t] {
				named = true
				break
			}
		}
		if !named {
			continue
		}
		if risk, why := extract.DetectContradiction(sent, sib.Content); risk {
			return i, why, true
		}
	}
	return 0, "", false
}

// siblingTerms are the words that name a sibling: its attribute's own
// words ("postgres" of "postgres version") and its value's.
func siblingTerms(sib *storage.SiblingRow) []string {
	var out []string
	for _, w := range text.QueryTerms(sib.Name) {
		if !siblingGeneric[w] {
			out = append(out, w)
		}
	}
	for _, w := range text.QueryTerms(sib.Value) {
		if len(w) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

// proposeSiblingReview records a pending UPDATE proposal from m to the
// sibling's memory, for review, with a history event on m.
func (t Tx) proposeSiblingReview(ctx context.Context, m *storage.Memory, sib *storage.SiblingRow, why string) error {
	if dup, err := storage.PendingProposalFor(ctx, t.Tx, m.ID, sib.MemoryID); err != nil || dup {
		return err
	}
	now := t.Stamp
	reason := fmt.Sprintf("may replace %s's %s = %s (%s); contradiction detector: %s", sib.Entity, sib.Name, sib.Value, sib.Aspect, why)
	p := &storage.Proposal{ID: newID(), SourceMemoryID: m.ID, Action: extract.ActionUpdate, Fact: m.Content,
		FactType: m.Type, Confidence: clamp01(m.Confidence), TargetMemoryID: sib.MemoryID, TargetVersion: sib.Version,
		Reason: reason, State: storage.ProposalPending, Shadow: true, ReviewNeeded: true, ContradictionRisk: true,
		CreatedAt: now, UpdatedAt: now}
	if err := storage.InsertProposal(ctx, t.Tx, p); err != nil {
		return err
	}
	return t.RecordPipeline(ctx, m.ID, storage.EventNone, "contradiction review: "+strings.TrimSpace(reason),
		map[string]any{"proposalId": p.ID, "proposedAction": p.Action, "targetMemoryId": sib.MemoryID, "reviewNeeded": true,
			"contradictionRisk": true, "entity": sib.Entity, "aspect": sib.Aspect, "attribute": sib.Name, "value": sib.Value})
}
