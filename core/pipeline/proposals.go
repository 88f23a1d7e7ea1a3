package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/storage"
)

// Proposal review (docs/design/pipeline.md, "Proposal review"): shadow
// proposals are reviewable. Every pending proposal can be approved, which
// applies it through the one write path with the operator as actor, or
// rejected with a reason. Both outcomes are recorded in the source memory's
// history.

// CodeProposalNotPending is returned when a proposal was already decided.
const CodeProposalNotPending = "proposal_not_pending"

// ProposalFilter selects proposals.
type ProposalFilter = storage.ProposalFilter

// ListProposals returns proposals matching f, newest first.
func (s *Pipeline) ListProposals(ctx context.Context, f ProposalFilter, limit int) ([]*storage.Proposal, error) {
	if limit <= 0 {
		limit = 50
	}
	if limit > 1000 {
		return nil, core.Invalid("limit", "limit must be an integer from 1 to 1000")
	}
	if e := checkProposalFilter(f); e != nil {
		return nil, e
	}
	return storage.ListProposals(ctx, s.svc.DB().Reader(), f, limit)
}

// CountMatching counts the proposals matching f (its Offset aside).
func (s *Pipeline) CountMatching(ctx context.Context, f ProposalFilter) (int, error) {
	if e := checkProposalFilter(f); e != nil {
		return 0, e
	}
	return storage.CountProposalsMatching(ctx, s.svc.DB().Reader(), f)
}

// checkProposalFilter refuses a state or action that does not exist, and
// a negative offset.
func checkProposalFilter(f ProposalFilter) *core.Error {
	switch f.State {
	case "", storage.ProposalPending, storage.ProposalApproved, storage.ProposalRejected, storage.ProposalApplied, storage.ProposalSkipped:
	default:
		return core.Invalid("state", "state must be one of pending, approved, rejected, applied, skipped")
	}
	switch f.Action {
	case "", extract.ActionAdd, extract.ActionUpdate, extract.ActionDelete, extract.ActionNone:
	default:
		return core.Invalid("action", "action must be one of add, update, delete, none")
	}
	if f.Offset < 0 {
		return core.Invalid("offset", "offset must not be negative")
	}
	switch f.Sort {
	case "", storage.ProposalsOldest, storage.ProposalsConfidence:
	default:
		return core.Invalid("sort", "sort must be oldest or confidence (or empty: newest first)")
	}
	return nil
}

// GetProposal returns one proposal.
func (s *Pipeline) GetProposal(ctx context.Context, id string) (*storage.Proposal, error) {
	p, err := storage.GetProposal(ctx, s.svc.DB().Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, core.ErrNotFound
	}
	return p, err
}

func (s *Pipeline) pendingProposal(ctx context.Context, id string) (*storage.Proposal, error) {
	p, err := s.GetProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	if p.State != storage.ProposalPending {
		return nil, &core.Error{Code: CodeProposalNotPending,
			Message: "proposal is " + p.State + ", not pending", Extra: map[string]any{"state": p.State}}
	}
	return p, nil
}

// ApproveProposal applies a pending proposal with actor (the operator):
// ADD through the write path (deduplicated by content), UPDATE as a
// memory holding the fact that supersedes the target (supersede.go), and
// DELETE through Forget, both guarded by the target's version at proposal
// time, so a stale proposal fails with version_conflict and stays
// pending. NONE is only marked approved.
func (s *Pipeline) ApproveProposal(ctx context.Context, id string, actor core.Actor, reason string) (*storage.Proposal, error) {
	if err := s.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	actor = actor.Normalized()
	p, err := s.pendingProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	why := strings.TrimSpace(reason)
	if why == "" {
		why = "approved"
	}
	applied := ""
	state := storage.ProposalApplied
	var created string
	switch p.Action {
	case extract.ActionAdd:
		src := s.proposalSource(ctx, p.SourceMemoryID)
		err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
			created = ""
			id, deduped, err := s.insertFact(ctx, tx, p, src, "", actor, "")
			if err != nil {
				return err
			}
			if !deduped {
				created = id
			}
			applied = id
			return s.finishDecision(ctx, tx, p, state, applied, actor, why, "approved")
		})
		if err != nil {
			return nil, decisionErr(err)
		}
		if created != "" {
			s.vec.EmbedSoon()
			s.svc.Publish(core.Event{Kind: core.EventCreated, MemoryID: created, Actor: actor.Name})
		}
		return s.GetProposal(ctx, id)
	case extract.ActionUpdate, extract.ActionDelete:
		if applied, err = s.applyDestructive(ctx, p, "", actor, "approved proposal "+p.ID+": "+why); err != nil {
			return nil, err
		}
	default:
		state = storage.ProposalApproved
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		return s.finishDecision(ctx, tx, p, state, applied, actor, why, "approved")
	})
	if err != nil {
		return nil, decisionErr(err)
	}
	return s.GetProposal(ctx, id)
}

// RejectProposal marks a pending proposal rejected; reason is required.
func (s *Pipeline) RejectProposal(ctx context.Context, id string, actor core.Actor, reason string) (*storage.Proposal, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, core.Invalid("reason", "reason is required")
	}
	actor = actor.Normalized()
	p, err := s.pendingProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		return s.finishDecision(ctx, tx, p, storage.ProposalRejected, "", actor, strings.TrimSpace(reason), "rejected")
	})
	if err != nil {
		return nil, decisionErr(err)
	}
	return s.GetProposal(ctx, id)
}

// ReopenProposal undoes a decision: a rejected, approved or applied
// proposal is pending again, without its decision, and the source
// memory's history records who reopened it and why. It does not touch
// memories: the caller reverts what an approval applied first (forgets the
// memory an ADD created, restores what an UPDATE changed, recovers what a
// DELETE removed), through the write path, as the TUI's undo does.
func (s *Pipeline) ReopenProposal(ctx context.Context, id string, actor core.Actor, reason string) (*storage.Proposal, error) {
	if err := s.svc.CheckFrozen(); err != nil {
		return nil, err
	}
	actor = actor.Normalized()
	p, err := s.GetProposal(ctx, id)
	if err != nil {
		return nil, err
	}
	if p.State == storage.ProposalPending {
		return nil, &core.Error{Code: CodeProposalNotPending, Message: "proposal " + id + " is pending: there is no decision to undo"}
	}
	why := strings.TrimSpace(reason)
	if why == "" {
		why = "decision undone"
	}
	err = s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.ReopenProposal(ctx, tx, p.ID, p.State, s.svc.Timestamp()); err != nil {
			return err
		}
		meta := map[string]any{"proposalId": p.ID, "proposedAction": p.Action, "fact": p.Fact,
			"decision": "reopened", "previousState": p.State, "appliedMemoryId": p.AppliedMemoryID}
		return s.svc.AddHistory(ctx, tx, p.SourceMemoryID, storage.EventNone, nil, nil, actor, "proposal reopened: "+why, meta)
	})
	if err != nil {
		return nil, decisionErr(err)
	}
	return s.GetProposal(ctx, id)
}

func (s *Pipeline) finishDecision(ctx context.Context, tx storage.Tx, p *storage.Proposal, state, applied string, actor core.Actor, reason, outcome string) error {
	if err := storage.DecideProposal(ctx, tx, p.ID, storage.ProposalPending, state, applied, actor.Name, reason, s.svc.Timestamp()); err != nil {
		return err
	}
	meta := map[string]any{"proposalId": p.ID, "proposedAction": p.Action, "fact": p.Fact,
		"targetMemoryId": p.TargetMemoryID, "decision": outcome, "state": state, "appliedMemoryId": applied}
	return s.svc.AddHistory(ctx, tx, p.SourceMemoryID, storage.EventNone, nil, nil, actor, "proposal "+outcome+": "+reason, meta)
}

func decisionErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return &core.Error{Code: CodeProposalNotPending, Message: "proposal was decided concurrently"}
	}
	return err
}

// CountProposals counts proposals in state (one indexed query), for status
// bars that only need to say how many wait for a decision.
func (s *Pipeline) CountProposals(ctx context.Context, state string) (int, error) {
	n, err := storage.CountProposals(ctx, s.svc.DB().Reader(), state)
	if err != nil {
		return 0, fmt.Errorf("count proposals: %w", err)
	}
	return n, nil
}
