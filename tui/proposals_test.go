package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/backend"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/proposals"
)

func (h *harness) proposalsPane() *proposals.Model {
	return h.m.Pane(paneProposals).(*proposals.Model)
}

func (h *harness) proposal(id string) *storage.Proposal {
	h.t.Helper()
	p, err := h.svc.GetProposal(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func newProposalsHarness(t *testing.T) *harness {
	h := newHarness(t, harnessOpts{width: 120, height: 40})
	pipelineFixture(h)
	h.Press("5")
	if h.m.Active() != paneProposals || len(h.proposalsPane().Visible()) != 3 {
		t.Fatalf("4 does not list the 3 pending proposals:\n%s", h.Screen())
	}
	return h
}

// selectProposal moves the cursor to proposal id.
func (h *harness) selectProposal(id string) {
	h.t.Helper()
	p := h.proposalsPane()
	h.Press("g")
	for range len(p.Visible()) {
		if s := p.Selected(); s != nil && s.ID == id {
			return
		}
		h.Press("j")
	}
	h.t.Fatalf("proposal %s not listed", id)
}

// addProposal is the ADD proposal the heuristic made for the WAL decision.
func (h *harness) addProposal() *storage.Proposal {
	h.t.Helper()
	for _, p := range h.proposalsPane().Visible() {
		if p.Action == extract.ActionAdd {
			return p
		}
	}
	h.t.Fatal("no ADD proposal")
	return nil
}

func TestProposalsListAndPreview(t *testing.T) {
	h := newProposalsHarness(t)
	h.selectProposal(propUpdate)
	s := h.Screen()
	for _, want := range []string{"3 pending proposals", "UPDATE 0.74 SRC  0000a002", "review needed · contradiction risk",
		"current 0000a001 v1", "proposed", "[-5433-] {+5434+}"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	h.selectProposal(propDelete)
	s = h.Screen()
	if !strings.Contains(s, "blocked: update/delete not allowed in shadow mode") || !strings.Contains(s, "proposed: delete") ||
		!strings.Contains(s, "[-Flaky-]") {
		t.Fatalf("delete preview:\n%s", s)
	}
}

func TestProposalsApprove(t *testing.T) {
	h := newProposalsHarness(t)
	add := h.addProposal()
	h.selectProposal(add.ID)
	h.Press("a")
	got := h.proposal(add.ID)
	if got.State != storage.ProposalApplied || got.DecidedBy != "tui" || got.AppliedMemoryID == "" {
		t.Fatalf("after a: %+v", got)
	}
	mem := h.Get(got.AppliedMemoryID)
	if !strings.Contains(mem.Content, "SQLite in WAL mode") {
		t.Fatalf("applied memory %q", mem.Content)
	}
	p := h.proposalsPane()
	if len(p.Visible()) != 2 || !strings.Contains(p.Flash().Text, "approved ADD") {
		t.Fatalf("after approve: %d listed, flash %+v", len(p.Visible()), p.Flash())
	}
}

func TestProposalsStaleApproveShowsConflict(t *testing.T) {
	h := newProposalsHarness(t)
	c := "postgres runs on port 5435 in staging"
	if _, err := h.svc.Modify(context.Background(), core.Patch{ID: idPostgres, Content: &c, Reason: "staging moved"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	h.selectProposal(propUpdate)
	h.Press("a")
	f := h.proposalsPane().Flash()
	if !f.Err || !strings.Contains(f.Text, "version_conflict") || !strings.Contains(f.Text, "stays pending") {
		t.Fatalf("flash %+v", f)
	}
	if !strings.Contains(h.Screen(), "version_conflict") {
		t.Fatalf("the conflict is not on screen:\n%s", h.Screen())
	}
	if h.proposal(propUpdate).State != storage.ProposalPending {
		t.Fatal("a stale proposal left pending")
	}
	if h.Get(idPostgres).Content != c {
		t.Fatal("a stale proposal overwrote the memory")
	}
}

func TestProposalsRejectNeedsReason(t *testing.T) {
	h := newProposalsHarness(t)
	h.selectProposal(propDelete)
	h.Press("r")
	if !h.m.Pane(paneProposals).Capturing() || !strings.Contains(h.Screen(), "reject 000c0002 because:") {
		t.Fatalf("r does not prompt:\n%s", h.Screen())
	}
	h.Press("enter")
	if f := h.proposalsPane().Flash(); !f.Err || !strings.Contains(f.Text, "needs a reason") {
		t.Fatalf("empty reason: %+v", f)
	}
	h.Press("esc")
	if h.m.Pane(paneProposals).Capturing() || h.proposal(propDelete).State != storage.ProposalPending {
		t.Fatal("esc does not cancel the rejection")
	}
	h.Press("r")
	h.TypeText("the test is still flaky")
	h.Press("enter")
	got := h.proposal(propDelete)
	if got.State != storage.ProposalRejected || got.DecisionReason != "the test is still flaky" || got.DecidedBy != "tui" {
		t.Fatalf("after reject: %+v", got)
	}
}

func TestProposalsSkip(t *testing.T) {
	h := newProposalsHarness(t)
	p := h.proposalsPane()
	h.Press("g")
	first := p.Selected().ID
	h.Press("s")
	if p.Selected().ID == first {
		t.Fatal("s does not move on")
	}
	if h.proposal(first).State != storage.ProposalPending || !strings.Contains(p.Flash().Text, "stays pending") {
		t.Fatalf("s decided: %s", h.proposal(first).State)
	}
}

func TestProposalsApproveAllAboveConfidence(t *testing.T) {
	h := newProposalsHarness(t)
	h.Press("A")
	h.TypeText("abc")
	h.Press("enter")
	if f := h.proposalsPane().Flash(); !f.Err || !strings.Contains(f.Text, "want a confidence from 0 to 1") {
		t.Fatalf("bad threshold: %+v", f)
	}
	h.Press("ctrl+u")
	h.TypeText("0.9")
	h.Press("enter")
	if f := h.proposalsPane().Flash(); !strings.Contains(f.Text, "no pending ADD proposals at confidence ≥ 0.90") {
		t.Fatalf("nothing above 0.9: %+v", f)
	}
	h.Press("A")
	h.TypeText("0.8")
	h.Press("enter")
	if !strings.Contains(h.Screen(), "Approve 1 pending ADD proposals with confidence ≥ 0.80? y/n") {
		t.Fatalf("no confirmation with the count:\n%s", h.Screen())
	}
	h.Press("n")
	if h.proposal(h.addProposal().ID).State != storage.ProposalPending {
		t.Fatal("n approved")
	}
	add := h.addProposal().ID
	h.Press("A")
	h.TypeText("0.8")
	h.Press("enter", "y")
	if got := h.proposal(add); got.State != storage.ProposalApplied {
		t.Fatalf("y: %+v", got)
	}
	// Below the threshold and not ADD: untouched.
	for _, id := range []string{propUpdate, propDelete} {
		if h.proposal(id).State != storage.ProposalPending {
			t.Fatalf("%s decided by approve all", id)
		}
	}
	if f := h.proposalsPane().Flash(); !strings.Contains(f.Text, "approved 1 ADD proposals") {
		t.Fatalf("flash %+v", f)
	}
}

func TestProposalsFilters(t *testing.T) {
	h := newProposalsHarness(t)
	p := h.proposalsPane()
	h.Press("f") // add
	if len(p.Visible()) != 1 || p.Visible()[0].Action != extract.ActionAdd || !strings.Contains(h.Screen(), "action=add") {
		t.Fatalf("f → add: %d\n%s", len(p.Visible()), h.Screen())
	}
	h.Press("f") // update
	if len(p.Visible()) != 1 || p.Visible()[0].ID != propUpdate {
		t.Fatal("f → update")
	}
	h.Press("f", "f", "f") // delete, none, all
	if len(p.Visible()) != 3 {
		t.Fatalf("f cycles back to all: %d", len(p.Visible()))
	}
	h.Press("x") // contradiction
	if len(p.Visible()) != 1 || p.Visible()[0].ID != propUpdate || !strings.Contains(h.Screen(), "flag=contradiction") {
		t.Fatal("x → contradiction")
	}
	h.Press("x") // review-needed
	if len(p.Visible()) != 1 || !p.Visible()[0].ReviewNeeded {
		t.Fatal("x → review-needed")
	}
	h.Press("x") // blocked
	if len(p.Visible()) != 1 || p.Visible()[0].ID != propDelete {
		t.Fatal("x → blocked")
	}
	h.Press("f") // add + blocked: nothing
	if len(p.Visible()) != 0 || !strings.Contains(h.Screen(), "No pending proposal matches the filters") {
		t.Fatalf("combined filters:\n%s", h.Screen())
	}
	h.Press("esc")
	if len(p.Visible()) != 3 {
		t.Fatal("esc does not clear the filters")
	}
}

func TestProposalsDecidedViewAndDetail(t *testing.T) {
	h := newProposalsHarness(t)
	h.selectProposal(propDelete)
	h.Press("r")
	h.TypeText("still flaky")
	h.Press("enter")
	h.Press("d")
	p := h.proposalsPane()
	if len(p.Visible()) != 1 || p.Visible()[0].ID != propDelete {
		t.Fatalf("decided view: %d", len(p.Visible()))
	}
	s := h.Screen()
	if !strings.Contains(s, "1 decided proposals") || !strings.Contains(s, "rejected tui") || !strings.Contains(s, "rejected by tui at 2026-03-14T15:09:26.000Z: still flaky") {
		t.Fatalf("decided view:\n%s", s)
	}
	h.Press("a") // no decisions in the decided view
	if h.proposal(propDelete).State != storage.ProposalRejected {
		t.Fatal("a acted in the decided view")
	}
	h.Press("enter")
	if !p.Nested() || !strings.Contains(h.Screen(), "DELETE proposal 000c0002 · rejected") {
		t.Fatalf("enter in decided view:\n%s", h.Screen())
	}
	h.Press("esc", "d")
	if len(p.Visible()) != 2 {
		t.Fatalf("back to pending: %d", len(p.Visible()))
	}
	// The detail of a pending one takes a and r too.
	h.selectProposal(propUpdate)
	h.Press("enter")
	if !strings.Contains(h.Screen(), "UPDATE proposal 000c0001 · pending") {
		t.Fatalf("detail:\n%s", h.Screen())
	}
	h.Press("r")
	h.TypeText("wrong port")
	h.Press("enter")
	if got := h.proposal(propUpdate); got.State != storage.ProposalRejected || got.DecisionReason != "wrong port" {
		t.Fatalf("r in the detail: %+v", got)
	}
	if p.Nested() {
		t.Fatal("the detail stays open on a decided proposal")
	}
}

func TestProposalsErrorIsShown(t *testing.T) {
	h := newHarness(t, harnessOpts{backend: func(svc *core.Service) backend.Backend {
		return tuitest.Failing(svc)
	}})
	h.Press("5")
	if s := h.Screen(); !strings.Contains(s, "proposals: list proposals: database is locked") {
		t.Fatalf("error not shown:\n%s", s)
	}
}
