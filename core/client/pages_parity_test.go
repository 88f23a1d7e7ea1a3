package client_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
)

// walkMemories reads every page of f with cursors, down from the first
// page, and returns the ids in order.
func walkMemories(t *testing.T, c client.Client, f core.MemoryFilter, limit int, oldest ...bool) []string {
	t.Helper()
	var ids []string
	old := len(oldest) > 0 && oldest[0]
	p := core.PageQuery{Limit: limit, Oldest: old}
	for range 100 {
		page, err := c.Page(context.Background(), f, p, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Cursors) != len(page.Memories) || page.Total != -1 {
			t.Fatalf("page shape: %d cursors for %d memories, total %d", len(page.Cursors), len(page.Memories), page.Total)
		}
		for _, m := range page.Memories {
			ids = append(ids, m.ID)
		}
		if len(page.Memories) < limit {
			return ids
		}
		p = core.PageQuery{Before: page.Cursors[len(page.Cursors)-1], Limit: limit, Oldest: old}
	}
	t.Fatal("paging never ended")
	return nil
}

// TestPagesBothBackends walks every memory and every audit event by
// cursor, in process and over the API: the pages join into the whole list
// in order, with nothing twice and nothing missed, also across memories
// created in the same millisecond; the page above a cursor, the last page
// and the counts agree.
func TestPagesBothBackends(t *testing.T) {
	svc, backends := opsBackends(t)
	ctx := context.Background()
	agent := core.Actor{Name: "agent"}
	var want []string // newest first
	for i := range 23 {
		in := core.RememberInput{Content: fmt.Sprintf("memory number %d about the page walk", i), Type: "fact"}
		if i%3 == 0 {
			in.Type, in.Project = "decision", "/src/atlas"
		}
		res, err := svc.Remember(ctx, in, agent)
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{res.Memory.ID}, want...)
	}
	id := want[5]
	if _, err := svc.Forget(ctx, core.ForgetInput{ID: id, Reason: "gone"}, agent); err != nil {
		t.Fatal(err)
	}
	// Half of them share one millisecond: the row id orders them.
	err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memories SET created_at = '2026-01-01T00:00:00.000Z' WHERE rid % 2 = 0`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	all, err := svc.List(ctx, core.MemoryFilter{IncludeDeleted: true}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	want = ids(all.Memories)
	live := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == id })
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			for _, limit := range []int{1, 4, 7, 50} {
				if got := walkMemories(t, b, core.MemoryFilter{}, limit); !slices.Equal(got, live) {
					t.Fatalf("limit %d: walked %v\nwant %v", limit, got, live)
				}
			}
			rev := slices.Clone(live)
			slices.Reverse(rev)
			if got := walkMemories(t, b, core.MemoryFilter{}, 4, true); !slices.Equal(got, rev) {
				t.Fatalf("oldest first: walked %v\nwant %v", got, rev)
			}
			if last, _ := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{Last: true, Oldest: true, Limit: 2}, false); !slices.Equal(ids(last.Memories), rev[len(rev)-2:]) {
				t.Fatalf("oldest first, last page: %v", ids(last.Memories))
			}
			if got := walkMemories(t, b, core.MemoryFilter{OnlyDeleted: true}, 3); !slices.Equal(got, []string{id}) {
				t.Fatalf("deleted: %v", got)
			}
			decisions := walkMemories(t, b, core.MemoryFilter{Type: "decision", Project: "/src/atlas"}, 2)
			if len(decisions) != 8 {
				t.Fatalf("decisions of atlas: %d", len(decisions))
			}
			// Counted: kept totals for live and deleted, a count otherwise.
			for f, n := range map[*core.MemoryFilter]int{{}: 22, {OnlyDeleted: true}: 1, {Type: "decision"}: 8, {IncludeDeleted: true}: 23} {
				page, err := b.Page(ctx, *f, core.PageQuery{Limit: 1}, true)
				if err != nil || page.Total != n {
					t.Fatalf("count of %+v: %d, want %d (%v)", *f, page.Total, n, err)
				}
			}
			// The page above a cursor, nearest last, in list order.
			first, _ := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{Limit: 10}, false)
			above, err := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{After: first.Cursors[6], Limit: 3}, false)
			if err != nil || !slices.Equal(ids(above.Memories), live[3:6]) {
				t.Fatalf("the 3 above the 7th: %v, want %v (%v)", ids(above.Memories), live[3:6], err)
			}
			incl, _ := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{Before: first.Cursors[6], Inclusive: true, Limit: 2}, false)
			if !slices.Equal(ids(incl.Memories), live[6:8]) {
				t.Fatalf("inclusive from the 7th: %v", ids(incl.Memories))
			}
			last, _ := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{Last: true, Limit: 4}, false)
			if !slices.Equal(ids(last.Memories), live[len(live)-4:]) {
				t.Fatalf("last page: %v, want %v", ids(last.Memories), live[len(live)-4:])
			}
			if _, err := b.Page(ctx, core.MemoryFilter{}, core.PageQuery{Before: "garbage", Limit: 4}, false); !isInvalid(err, "cursor") {
				t.Fatalf("a bad cursor: %v", err)
			}

			// History: the same walk over the audit trail (23 created, 1 deleted).
			var events []string
			p := core.PageQuery{Limit: 5}
			for {
				page, err := b.HistoryPage(ctx, core.HistorySearch{}, p, true)
				if err != nil {
					t.Fatal(err)
				}
				if page.Total != 24 {
					t.Fatalf("history total %d", page.Total)
				}
				for _, e := range page.History {
					events = append(events, e.ID)
				}
				if len(page.History) < 5 {
					break
				}
				p = core.PageQuery{Before: page.Cursors[len(page.Cursors)-1], Limit: 5}
			}
			all, _ := b.SearchHistory(ctx, core.HistorySearch{}, 100)
			if !slices.Equal(events, historyIDs(all)) {
				t.Fatalf("history walked %d events, want %d in order", len(events), len(all))
			}
			words, err := b.HistoryPage(ctx, core.HistorySearch{Text: []string{"number", "12"}}, core.PageQuery{Limit: 10}, true)
			if err != nil || words.Total != 1 || len(words.History) != 1 {
				t.Fatalf("history by words: %+v %v", words, err)
			}
		})
	}
}

// TestQueuePagesBothBackends pages the job queue and the proposals by
// offset: the pages join into the whole list and carry its total; the
// decided proposals come newest decision first.
func TestQueuePagesBothBackends(t *testing.T) {
	svc, backends := opsBackends(t)
	ctx := context.Background()
	now := time.Now().UTC()
	err := svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		for i := range 12 {
			at := storage.FormatTime(now.Add(-time.Duration(i) * time.Minute))
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, memory_id, job_type, status, attempts, max_attempts, created_at, updated_at)
				VALUES (?, ?, 'extract', 'completed', 1, 3, ?, ?)`, fmt.Sprintf("job-%02d", i), fmt.Sprintf("mem-%02d", i), at, at); err != nil {
				return err
			}
			p := &storage.Proposal{ID: fmt.Sprintf("prop-%02d", i), SourceMemoryID: "m", Action: "add", Fact: fmt.Sprintf("fact %d", i),
				State: storage.ProposalPending, CreatedAt: at}
			if i < 4 {
				p.State, p.DecidedAt, p.DecidedBy = storage.ProposalRejected, storage.FormatTime(now.Add(time.Duration(i)*time.Second)), "tui"
			}
			if err := storage.InsertProposal(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			var jobs []string
			for off := 0; ; off += 5 {
				page, err := b.Jobs(ctx, wire.JobFilter{Offset: off}, 5)
				if err != nil || page.Total != 12 {
					t.Fatalf("jobs page at %d: total %v, %v", off, page, err)
				}
				for _, j := range page.Jobs {
					jobs = append(jobs, j.ID)
				}
				if len(page.Jobs) < 5 {
					break
				}
			}
			if len(jobs) != 12 || jobs[0] != "job-00" || jobs[11] != "job-11" {
				t.Fatalf("jobs walked: %v", jobs)
			}
			if p, err := b.Jobs(ctx, wire.JobFilter{Text: "JOB-0", Sort: "oldest"}, 3); err != nil || p.Total != 10 || p.Jobs[0].ID != "job-09" {
				t.Fatalf("jobs by text, oldest first: %+v %v", p, err)
			}
			if p, err := b.Proposals(ctx, wire.ProposalFilter{State: wire.ProposalPending, Text: "fact 1", Sort: "oldest"}, 5); err != nil ||
				p.Total != 2 || p.Proposals[0].ID != "prop-11" {
				t.Fatalf("proposals by text, oldest first: %+v %v", p, err)
			}
			pending, err := b.Proposals(ctx, wire.ProposalFilter{State: wire.ProposalPending, Offset: 5}, 5)
			if err != nil || pending.Total != 8 || len(pending.Proposals) != 3 || pending.Proposals[0].ID != "prop-09" {
				t.Fatalf("pending page 2: %+v %v", pending, err)
			}
			decided, err := b.Proposals(ctx, wire.ProposalFilter{Decided: true}, 10)
			if err != nil || decided.Total != 4 || decided.Proposals[0].ID != "prop-03" || decided.Proposals[3].ID != "prop-00" {
				t.Fatalf("decided: %+v %v", decided, err)
			}
		})
	}
	// Undo a decision: the proposal is pending again, without it.
	for name, b := range backends {
		id := map[string]string{"local": "prop-00", "http": "prop-01"}[name]
		p, err := b.ReopenProposal(ctx, id, "undo in the test")
		if err != nil || p.State != wire.ProposalPending || p.DecidedBy != "" || p.DecidedAt != "" {
			t.Fatalf("%s: reopened: %+v %v", name, p, err)
		}
		if _, err := b.ReopenProposal(ctx, id, "again"); core.AsError(err).Code != "proposal_not_pending" {
			t.Fatalf("%s: reopening a pending proposal: %v", name, err)
		}
	}
}

func ids(ms []*core.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func historyIDs(es []*wire.HistoryEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func isInvalid(err error, field string) bool {
	ce := core.AsError(err)
	return err != nil && ce.Code == core.CodeInvalidRequest && ce.Extra["field"] == field
}
