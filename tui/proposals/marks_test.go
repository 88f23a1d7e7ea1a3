package proposals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/proposals"
)

// sizes are the terminal sizes the list tests run at: the narrowest the
// UI supports and a wide one.
var sizes = [][2]int{{80, 24}, {140, 45}}

// proposalsAt is the Proposals pane over the pipeline fixture at w×h.
func proposalsAt(t *testing.T, w, h int) *shelltest.Harness {
	t.Helper()
	hs := shelltest.New(t, shelltest.Options{Width: w, Height: h})
	shelltest.PipelineFixture(hs)
	hs.Press("5")
	if len(proposalsPane(hs).Visible()) != 3 {
		t.Fatalf("the 3 pending proposals are not listed:\n%s", hs.Screen())
	}
	return hs
}

// ids are the listed proposals' ids in list order.
func ids(h *shelltest.Harness) []string {
	var out []string
	for _, p := range proposalsPane(h).Visible() {
		out = append(out, p.ID)
	}
	return out
}

// TestProposalsTextFilter: / filters the list as typed (fact, reason,
// ids), as Recall's box does: enter opens the selected proposal, esc
// leaves the box with the filter kept, esc again clears it.
func TestProposalsTextFilter(t *testing.T) {
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := proposalsAt(t, size[0], size[1])
			h.Press("/")
			if !h.M.Pane(paneProposals).Capturing() || !strings.Contains(h.Screen(), "/ filter proposals") {
				t.Fatalf("/ does not open the filter box:\n%s", h.Screen())
			}
			h.TypeText("flaky")
			if got := ids(h); len(got) != 1 || got[0] != tuitest.PropDelete {
				t.Fatalf("flaky lists %v:\n%s", got, h.Screen())
			}
			if s := h.Screen(); !strings.Contains(s, `1 pending proposals (of 3)`) || !strings.Contains(s, "the flaky export test was fixed") {
				t.Fatalf("the filtered list:\n%s", s)
			}
			h.Press("esc") // leaves the box, keeps the filter
			if h.M.Pane(paneProposals).Capturing() || len(ids(h)) != 1 || !strings.Contains(h.Screen(), `matching "flaky"`) {
				t.Fatalf("esc in the box:\n%s", h.Screen())
			}
			h.Press("esc") // clears it
			if len(ids(h)) != 3 || strings.Contains(h.Screen(), "matching") {
				t.Fatalf("esc does not clear the filter:\n%s", h.Screen())
			}
			// Words match anywhere, every word must: the reason and the id.
			h.Press("/")
			h.TypeText("staging 000c0001")
			if got := ids(h); len(got) != 1 || got[0] != tuitest.PropUpdate {
				t.Fatalf("two words: %v", got)
			}
			h.Press("enter")
			if s := h.Screen(); !strings.Contains(s, "UPDATE proposal 000c0001 · pending") {
				t.Fatalf("enter in the box does not open the proposal:\n%s", s)
			}
			h.Press("esc", "esc")
			h.Press("/")
			h.TypeText("nothing like this")
			if s := h.Screen(); !strings.Contains(s, "No pending proposal matches the filters") {
				t.Fatalf("no match:\n%s", s)
			}
			// The decided view filters too.
			h.Press("esc", "esc")
			selectProposal(h, tuitest.PropDelete)
			h.Press("r")
			h.TypeText("still flaky")
			h.Press("enter", "d", "/")
			h.TypeText("postgres")
			if !strings.Contains(h.Screen(), "No decided proposal matches the filters") {
				t.Fatalf("the decided view's filter:\n%s", h.Screen())
			}
			h.Press("ctrl+u")
			h.TypeText("still flaky")
			if got := ids(h); len(got) != 1 || got[0] != tuitest.PropDelete || !strings.Contains(h.Screen(), `matching "still flaky"`) {
				t.Fatalf("the decided view's filter: %v\n%s", got, h.Screen())
			}
		})
	}
}

// TestProposalsSort: o cycles newest, oldest and highest confidence
// first, and by action (newest first within each); the header says
// which.
func TestProposalsSort(t *testing.T) {
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := proposalsAt(t, size[0], size[1])
			// An old proposal of high confidence tells the orders apart.
			const old = "0195a1b2-0000-7000-8000-0000000c0009"
			err := h.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
				return storage.InsertProposal(context.Background(), tx, &storage.Proposal{ID: old, JobID: tuitest.JobDone,
					SourceMemoryID: tuitest.IDSQLite, Action: extract.ActionAdd, FactType: "fact", Fact: "an old and certain fact",
					Confidence: 0.95, Shadow: true, CreatedAt: storage.FormatTime(tuitest.FixedNow.Add(-time.Hour))})
			})
			if err != nil {
				t.Fatal(err)
			}
			h.Advance(proposals.RefreshInterval)
			want := func(label string, order ...string) {
				t.Helper()
				if s := h.Screen(); !strings.Contains(s, "4 pending proposals, "+label) {
					t.Fatalf("header for %s:\n%s", label, s)
				}
				if got := ids(h); strings.Join(got, " ") != strings.Join(order, " ") {
					t.Fatalf("%s: %v, want %v", label, got, order)
				}
			}
			want("newest first", tuitest.PropAdd, tuitest.PropUpdate, tuitest.PropDelete, old)
			h.Press("o")
			want("oldest first", old, tuitest.PropDelete, tuitest.PropUpdate, tuitest.PropAdd)
			h.Press("o")
			want("highest confidence first", old, tuitest.PropAdd, tuitest.PropUpdate, tuitest.PropDelete)
			// The order holds across the pane's refresh.
			h.Advance(proposals.RefreshInterval)
			want("highest confidence first", old, tuitest.PropAdd, tuitest.PropUpdate, tuitest.PropDelete)
			h.Press("o")
			want("by action, newest first", tuitest.PropAdd, old, tuitest.PropUpdate, tuitest.PropDelete)
			h.Press("o")
			want("newest first", tuitest.PropAdd, tuitest.PropUpdate, tuitest.PropDelete, old)
		})
	}
}

// TestProposalsMarkedDecisions: space marks proposals; a asks once for
// every marked one with their count, r asks one reason for all; ctrl+z
// undoes the whole decision (but an update applied in place, which it
// names).
func TestProposalsMarkedDecisions(t *testing.T) {
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := proposalsAt(t, size[0], size[1])
			selectProposal(h, tuitest.PropAdd)
			h.Press("space") // marks it and moves down, onto the UPDATE
			h.Press("space")
			s := h.Screen()
			if !strings.Contains(s, "2 marked (a approves, r rejects, esc unmarks)") || strings.Count(s, "●") != 2 {
				t.Fatalf("marks:\n%s", s)
			}
			h.Press("a")
			if s := h.Screen(); !strings.Contains(s, "Approve the 2 marked proposals (1 ADD, 1 UPDATE)? y/n") {
				t.Fatalf("a with marks does not ask for all of them:\n%s", s)
			}
			h.Press("n")
			if proposal(h, tuitest.PropAdd).State != storage.ProposalPending || !strings.Contains(h.Screen(), "2 marked") {
				t.Fatal("n decided, or dropped the marks")
			}
			h.Press("a", "y")
			add, upd := proposal(h, tuitest.PropAdd), proposal(h, tuitest.PropUpdate)
			if add.State != storage.ProposalApplied || upd.State != storage.ProposalApplied || add.DecidedBy != "tui" {
				t.Fatalf("after a, y: %s %s", add.State, upd.State)
			}
			if s := h.Screen(); !strings.Contains(s, "approved 2 proposals · ctrl+z undoes") || strings.Contains(s, "●") {
				t.Fatalf("after the bulk approve:\n%s", s)
			}
			h.Press("ctrl+z")
			if got := proposal(h, tuitest.PropAdd); got.State != storage.ProposalPending || !h.Get(add.AppliedMemoryID).IsDeleted {
				t.Fatalf("the undo left the ADD %s", got.State)
			}
			if proposal(h, tuitest.PropUpdate).State != storage.ProposalApplied {
				t.Fatal("the undo reopened an update applied in place")
			}
			if s := h.Screen(); !strings.Contains(s, "reopened 1 proposal; 1 changed a memory in place") {
				t.Fatalf("the undo's outcome:\n%s", s)
			}

			// Reject the two pending ones with one reason.
			h.Press("g", "space", "space")
			h.Press("r")
			if s := h.Screen(); !strings.Contains(s, "reject the 2 marked because:") {
				t.Fatalf("r with marks:\n%s", s)
			}
			h.Press("enter")
			if f := proposalsPane(h).Flash(); !f.Err || !strings.Contains(f.Text, "needs a reason") {
				t.Fatalf("an empty reason: %+v", f)
			}
			h.TypeText("not worth keeping")
			h.Press("enter")
			for _, id := range []string{tuitest.PropAdd, tuitest.PropDelete} {
				if got := proposal(h, id); got.State != storage.ProposalRejected || got.DecisionReason != "not worth keeping" {
					t.Fatalf("%s after the bulk reject: %s %q", id, got.State, got.DecisionReason)
				}
			}
			if len(ids(h)) != 0 || !strings.Contains(h.Screen(), "rejected 2 proposals · ctrl+z undoes") {
				t.Fatalf("after the bulk reject:\n%s", h.Screen())
			}
			h.Press("ctrl+z")
			for _, id := range []string{tuitest.PropAdd, tuitest.PropDelete} {
				if got := proposal(h, id); got.State != storage.ProposalPending {
					t.Fatalf("%s after the undo: %s", id, got.State)
				}
			}
			if s := h.Screen(); !strings.Contains(s, "reopened 2 proposals") || len(ids(h)) != 2 {
				t.Fatalf("after the undo:\n%s", s)
			}
			// esc unmarks.
			h.Press("g", "space")
			h.Press("esc")
			if strings.Contains(h.Screen(), "1 marked (") {
				t.Fatalf("esc does not unmark:\n%s", h.Screen())
			}
		})
	}
}

// TestProposalsStatusBarCountsWhatThePaneLists: a proposal decided
// elsewhere (no memory write, so no live change and no status refresh)
// leaves the pane's next read and the status bar saying the same count.
func TestProposalsStatusBarCountsWhatThePaneLists(t *testing.T) {
	for _, size := range sizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := proposalsAt(t, size[0], size[1])
			st := tuitest.FixedStatus
			st.PendingProposals = 3
			h.Send(tui.StatusMsg{Status: st})
			if !strings.Contains(h.Screen(), "3 proposals pending") {
				t.Fatalf("status bar:\n%s", h.Screen())
			}
			if _, err := h.App.Pipeline.RejectProposal(context.Background(), tuitest.PropDelete,
				core.Actor{Name: "cli", Type: core.ActorOperator}, "rejected elsewhere"); err != nil {
				t.Fatal(err)
			}
			h.Advance(proposals.RefreshInterval) // the pane's poll; the status bar's own tick is later
			s := h.Screen()
			if !strings.Contains(s, "2 pending proposals") || !strings.Contains(s, "2 proposals pending") {
				t.Fatalf("the pane and the status bar disagree:\n%s", s)
			}
			// A snapshot read before the pane's last read does not contradict it.
			h.Send(tui.StatusMsg{Status: st})
			if s := h.Screen(); !strings.Contains(s, "2 proposals pending") {
				t.Fatalf("a stale snapshot wins:\n%s", s)
			}
			// A decision in the pane re-reads the status bar, so it does not
			// lag once the pane is left (a rejection writes no memory: no
			// live change would refresh it).
			selectProposal(h, tuitest.PropUpdate)
			h.Press("r")
			h.TypeText("wrong port")
			h.Press("enter", "1")
			if s := h.Screen(); !strings.Contains(s, "1 proposals pending") {
				t.Fatalf("the status bar lags the decision once the pane is left:\n%s", s)
			}
		})
	}
}

// TestProposalsApproveAllIsUndone: ctrl+z undoes an approve-all as it
// undoes a marked approval: every ADD it applied is reopened and its
// memory forgotten.
func TestProposalsApproveAllIsUndone(t *testing.T) {
	h := proposalsAt(t, 80, 24)
	h.Press("A")
	h.TypeText("0.5")
	h.Press("enter", "y")
	add := proposal(h, tuitest.PropAdd)
	if add.State != storage.ProposalApplied || !strings.Contains(proposalsPane(h).Flash().Text, "approved 1 ADD proposals at confidence ≥ 0.50 · ctrl+z undoes") {
		t.Fatalf("approve all: %s, flash %+v", add.State, proposalsPane(h).Flash())
	}
	h.Press("ctrl+z")
	if got := proposal(h, tuitest.PropAdd); got.State != storage.ProposalPending || !h.Get(add.AppliedMemoryID).IsDeleted {
		t.Fatalf("the undo of approve all left %s", got.State)
	}
}
