// Tests of the Proposals pane, driven through the shell as a person uses
// it.
package proposals_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/proposals"
)

// paneProposals is the Proposals pane's index in the tab list.
const paneProposals = 4

func proposalsPane(h *shelltest.Harness) *proposals.Model {
	return h.M.Pane(paneProposals).(*proposals.Model)
}

func proposal(h *shelltest.Harness, id string) *storage.Proposal {
	h.T.Helper()
	p, err := h.App.Pipeline.GetProposal(context.Background(), id)
	if err != nil {
		h.T.Fatal(err)
	}
	return p
}

func newProposalsHarness(t *testing.T) *shelltest.Harness {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 40})
	shelltest.PipelineFixture(h)
	h.Press("5")
	if h.M.Active() != paneProposals || len(proposalsPane(h).Visible()) != 3 {
		t.Fatalf("4 does not list the 3 pending proposals:\n%s", h.Screen())
	}
	return h
}

// selectProposal moves the cursor to proposal id.
func selectProposal(h *shelltest.Harness, id string) {
	h.T.Helper()
	p := proposalsPane(h)
	h.Press("g")
	for range len(p.Visible()) {
		if s := p.Selected(); s != nil && s.ID == id {
			return
		}
		h.Press("j")
	}
	h.T.Fatalf("proposal %s not listed", id)
}

// addProposal is the ADD proposal the heuristic made for the WAL decision.
func addProposal(h *shelltest.Harness) *wire.Proposal {
	h.T.Helper()
	for _, p := range proposalsPane(h).Visible() {
		if p.Action == extract.ActionAdd {
			return p
		}
	}
	h.T.Fatal("no ADD proposal")
	return nil
}

func TestProposalsListAndPreview(t *testing.T) {
	h := newProposalsHarness(t)
	selectProposal(h, tuitest.PropUpdate)
	s := h.Screen()
	for _, want := range []string{"3 pending proposals", "UPDATE 0.74 SRC  0000a002", "review needed · contradiction risk",
		"current 0000a001 v1", "proposed", "[-5433-] {+5434+}"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	selectProposal(h, tuitest.PropDelete)
	s = h.Screen()
	if !strings.Contains(s, "blocked: update/delete not allowed in shadow mode") || !strings.Contains(s, "proposed: delete") ||
		!strings.Contains(s, "[-Flaky-]") {
		t.Fatalf("delete preview:\n%s", s)
	}
}

func TestProposalsApprove(t *testing.T) {
	h := newProposalsHarness(t)
	add := addProposal(h)
	selectProposal(h, add.ID)
	h.Press("a")
	got := proposal(h, add.ID)
	if got.State != storage.ProposalApplied || got.DecidedBy != "tui" || got.AppliedMemoryID == "" {
		t.Fatalf("after a: %+v", got)
	}
	mem := h.Get(got.AppliedMemoryID)
	if !strings.Contains(mem.Content, "SQLite in WAL mode") {
		t.Fatalf("applied memory %q", mem.Content)
	}
	p := proposalsPane(h)
	if len(p.Visible()) != 2 || !strings.Contains(p.Flash().Text, "approved ADD") {
		t.Fatalf("after approve: %d listed, flash %+v", len(p.Visible()), p.Flash())
	}
}

// TestProposalsUndoDecision: ctrl+z reopens the proposal last decided:
// an approved ADD's memory is forgotten, a rejection is simply reopened.
func TestProposalsUndoDecision(t *testing.T) {
	h := newProposalsHarness(t)
	add := addProposal(h)
	selectProposal(h, add.ID)
	h.Press("a")
	applied := proposal(h, add.ID).AppliedMemoryID
	if p := proposalsPane(h); !strings.Contains(p.Flash().Text, "ctrl+z undoes") {
		t.Fatalf("the decision's notice does not offer the undo: %+v", p.Flash())
	}
	h.Press("ctrl+z")
	if got := proposal(h, add.ID); got.State != storage.ProposalPending || !h.Get(applied).IsDeleted {
		t.Fatalf("undo of an approved ADD: %s, memory deleted %v", got.State, h.Get(applied).IsDeleted)
	}
	if p := proposalsPane(h); !strings.Contains(p.Flash().Text, "reopened ADD") || len(p.Visible()) != 3 {
		t.Fatalf("after undo: %d listed, flash %+v", len(p.Visible()), p.Flash())
	}

	selectProposal(h, tuitest.PropDelete)
	h.Press("r")
	h.TypeText("still flaky")
	h.Press("enter")
	h.Press("ctrl+z")
	if got := proposal(h, tuitest.PropDelete); got.State != storage.ProposalPending {
		t.Fatalf("undo of a rejection: %s", got.State)
	}
	h.Press("ctrl+z")
	if p := proposalsPane(h); !strings.Contains(p.Flash().Text, "nothing to undo") {
		t.Fatalf("a second undo: %+v", p.Flash())
	}
}

func TestProposalsStaleApproveShowsConflict(t *testing.T) {
	h := newProposalsHarness(t)
	c := "postgres runs on port 5435 in staging"
	if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &c, Reason: "staging moved"}, core.Actor{Name: "agent"}); err != nil {
		t.Fatal(err)
	}
	selectProposal(h, tuitest.PropUpdate)
	h.Press("a")
	f := proposalsPane(h).Flash()
	if !f.Err || !strings.Contains(f.Text, "version_conflict") || !strings.Contains(f.Text, "stays pending") {
		t.Fatalf("flash %+v", f)
	}
	if !strings.Contains(h.Screen(), "version_conflict") {
		t.Fatalf("the conflict is not on screen:\n%s", h.Screen())
	}
	if proposal(h, tuitest.PropUpdate).State != storage.ProposalPending {
		t.Fatal("a stale proposal left pending")
	}
	if h.Get(tuitest.IDPostgres).Content != c {
		t.Fatal("a stale proposal overwrote the memory")
	}
}

func TestProposalsRejectNeedsReason(t *testing.T) {
	h := newProposalsHarness(t)
	selectProposal(h, tuitest.PropDelete)
	h.Press("r")
	if !h.M.Pane(paneProposals).Capturing() || !strings.Contains(h.Screen(), "reject 000c0002 because:") {
		t.Fatalf("r does not prompt:\n%s", h.Screen())
	}
	h.Press("enter")
	if f := proposalsPane(h).Flash(); !f.Err || !strings.Contains(f.Text, "needs a reason") {
		t.Fatalf("empty reason: %+v", f)
	}
	h.Press("esc")
	if h.M.Pane(paneProposals).Capturing() || proposal(h, tuitest.PropDelete).State != storage.ProposalPending {
		t.Fatal("esc does not cancel the rejection")
	}
	h.Press("r")
	h.TypeText("the test is still flaky")
	h.Press("enter")
	got := proposal(h, tuitest.PropDelete)
	if got.State != storage.ProposalRejected || got.DecisionReason != "the test is still flaky" || got.DecidedBy != "tui" {
		t.Fatalf("after reject: %+v", got)
	}
}

func TestProposalsSkip(t *testing.T) {
	h := newProposalsHarness(t)
	p := proposalsPane(h)
	h.Press("g")
	first := p.Selected().ID
	h.Press("s")
	if p.Selected().ID == first {
		t.Fatal("s does not move on")
	}
	if proposal(h, first).State != storage.ProposalPending || !strings.Contains(p.Flash().Text, "stays pending") {
		t.Fatalf("s decided: %s", proposal(h, first).State)
	}
}

func TestProposalsApproveAllAboveConfidence(t *testing.T) {
	h := newProposalsHarness(t)
	h.Press("A")
	h.TypeText("abc")
	h.Press("enter")
	if f := proposalsPane(h).Flash(); !f.Err || !strings.Contains(f.Text, "want a confidence from 0 to 1") {
		t.Fatalf("bad threshold: %+v", f)
	}
	h.Press("ctrl+u")
	h.TypeText("0.9")
	h.Press("enter")
	if f := proposalsPane(h).Flash(); !strings.Contains(f.Text, "no pending ADD proposals at confidence ≥ 0.90") {
		t.Fatalf("nothing above 0.9: %+v", f)
	}
	h.Press("A")
	h.TypeText("0.8")
	h.Press("enter")
	if !strings.Contains(h.Screen(), "Approve 1 pending ADD proposals with confidence ≥ 0.80? y/n") {
		t.Fatalf("no confirmation with the count:\n%s", h.Screen())
	}
	h.Press("n")
	if proposal(h, addProposal(h).ID).State != storage.ProposalPending {
		t.Fatal("n approved")
	}
	add := addProposal(h).ID
	h.Press("A")
	h.TypeText("0.8")
	h.Press("enter", "y")
	if got := proposal(h, add); got.State != storage.ProposalApplied {
		t.Fatalf("y: %+v", got)
	}
	// Below the threshold and not ADD: untouched.
	for _, id := range []string{tuitest.PropUpdate, tuitest.PropDelete} {
		if proposal(h, id).State != storage.ProposalPending {
			t.Fatalf("%s decided by approve all", id)
		}
	}
	if f := proposalsPane(h).Flash(); !strings.Contains(f.Text, "approved 1 ADD proposals") {
		t.Fatalf("flash %+v", f)
	}
}

func TestProposalsFilters(t *testing.T) {
	h := newProposalsHarness(t)
	p := proposalsPane(h)
	h.Press("f") // add
	if len(p.Visible()) != 1 || p.Visible()[0].Action != extract.ActionAdd || !strings.Contains(h.Screen(), "action=add") {
		t.Fatalf("f → add: %d\n%s", len(p.Visible()), h.Screen())
	}
	h.Press("f") // update
	if len(p.Visible()) != 1 || p.Visible()[0].ID != tuitest.PropUpdate {
		t.Fatal("f → update")
	}
	h.Press("f", "f", "f") // delete, none, all
	if len(p.Visible()) != 3 {
		t.Fatalf("f cycles back to all: %d", len(p.Visible()))
	}
	h.Press("x") // contradiction
	if len(p.Visible()) != 1 || p.Visible()[0].ID != tuitest.PropUpdate || !strings.Contains(h.Screen(), "flag=contradiction") {
		t.Fatal("x → contradiction")
	}
	h.Press("x") // review-needed
	if len(p.Visible()) != 1 || !p.Visible()[0].ReviewNeeded {
		t.Fatal("x → review-needed")
	}
	h.Press("x") // blocked
	if len(p.Visible()) != 1 || p.Visible()[0].ID != tuitest.PropDelete {
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
	selectProposal(h, tuitest.PropDelete)
	h.Press("r")
	h.TypeText("still flaky")
	h.Press("enter")
	h.Press("d")
	p := proposalsPane(h)
	if len(p.Visible()) != 1 || p.Visible()[0].ID != tuitest.PropDelete {
		t.Fatalf("decided view: %d", len(p.Visible()))
	}
	s := h.Screen()
	if !strings.Contains(s, "1 decided proposals") || !strings.Contains(s, "rejected tui") || !strings.Contains(s, "rejected by tui at 2026-03-14T15:09:26.000Z: still flaky") {
		t.Fatalf("decided view:\n%s", s)
	}
	h.Press("a") // no decisions in the decided view
	if proposal(h, tuitest.PropDelete).State != storage.ProposalRejected {
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
	selectProposal(h, tuitest.PropUpdate)
	h.Press("enter")
	if !strings.Contains(h.Screen(), "UPDATE proposal 000c0001 · pending") {
		t.Fatalf("detail:\n%s", h.Screen())
	}
	h.Press("r")
	h.TypeText("wrong port")
	h.Press("enter")
	if got := proposal(h, tuitest.PropUpdate); got.State != storage.ProposalRejected || got.DecisionReason != "wrong port" {
		t.Fatalf("r in the detail: %+v", got)
	}
	if p.Nested() {
		t.Fatal("the detail stays open on a decided proposal")
	}
}

func TestProposalsErrorIsShown(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Client: func(ap *app.App) client.Client {
		return tuitest.Failing(ap)
	}})
	h.Press("5")
	if s := h.Screen(); !strings.Contains(s, "proposals: list proposals: database is locked") {
		t.Fatalf("error not shown:\n%s", s)
	}
}

// goldenViews are the Proposals pane's pinned states (shelltest.Golden).
var goldenViews = []shelltest.View{
	{Name: "proposals-empty", Setup: func(h *shelltest.Harness) { h.Press("5") }},
	{Name: "proposals-busy", Setup: func(h *shelltest.Harness) { shelltest.PipelineFixture(h); h.Press("5", "j") },
		Status: func(s *pane.Status) { s.Pipeline, s.PendingProposals = "shadow", 100 }},
	{Name: "proposals-conflict", Setup: func(h *shelltest.Harness) {
		shelltest.PipelineFixture(h)
		c := "postgres runs on port 5435 in staging"
		if _, err := h.Svc.Modify(context.Background(), core.Patch{ID: tuitest.IDPostgres, Content: &c, Reason: "moved"}, core.Actor{Name: "agent"}); err != nil {
			h.T.Fatal(err)
		}
		h.Press("5", "j", "a")
	}},
	{Name: "proposals-decided", Setup: func(h *shelltest.Harness) {
		shelltest.PipelineFixture(h)
		h.Press("5", "G", "r")
		h.TypeText("still flaky")
		h.Press("enter", "d")
	}},
	{Name: "proposals-error", Setup: func(h *shelltest.Harness) { h.Press("5") }, Client: tuitest.Failing},
}

func TestGolden(t *testing.T) { shelltest.Golden(t, goldenViews) }
