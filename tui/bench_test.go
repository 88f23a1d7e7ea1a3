package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/transfer"

	"github.com/cairnmem/cairn/core/config"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
)

// The benchmarks run against a large database named by CAIRN_BENCH_HOME
// (a CAIRN_HOME folder; memories.db inside is created with 100k memories
// on first use, which takes a minute or two). Without it they skip:
//
//	CAIRN_BENCH_HOME=/tmp/cairn100k go test ./tui -run '^$' -bench . -benchtime 200x
const benchMemories = 100_000

var benchWords = strings.Fields(`postgres sqlite wal deploy staging production port config docker
kubernetes cluster node pod service ingress auth token secret vault rotate key cert tls api http grpc
queue worker job retry backoff lease timeout cache redis index query plan vacuum migrate schema column
table row embed vector model rerank graph decay importance pin tag project agent session hook tool
test flaky race lint format gofmt vet build release tag version branch merge review commit rebase
log metric trace alert pager oncall incident postmortem budget latency throughput memory cpu disk`)

// benchService opens (creating if needed) the big database.
func benchService(b *testing.B) *app.App {
	b.Helper()
	home := os.Getenv("CAIRN_BENCH_HOME")
	if home == "" {
		b.Skip("set CAIRN_BENCH_HOME to a folder for a 100k-memory database")
	}
	path := filepath.Join(home, "memories.db")
	_, statErr := os.Stat(path)
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	db, err := storage.Open(context.Background(), storage.Options{Path: path, NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ap := app.New(db, config.DefaultConfig(), app.Options{})
	if os.IsNotExist(statErr) {
		generate(b, ap.Transfer, benchMemories)
	}
	return ap
}

// generate imports n memories of 8 to 40 words in batches.
func generate(b *testing.B, tr *transfer.Transfer, n int) {
	start := time.Now()
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"fact", "decision", "preference", "procedural", "issue"}
	const batch = 5000
	base := time.Now().Add(-365 * 24 * time.Hour)
	for done := 0; done < n; done += batch {
		lines := make([]transfer.ImportLine, 0, batch)
		for i := range min(batch, n-done) {
			k := done + i
			words := make([]string, 8+r.IntN(32))
			for j := range words {
				words[j] = benchWords[r.IntN(len(benchWords))]
			}
			at := storage.FormatTime(base.Add(time.Duration(k) * 5 * time.Minute))
			lines = append(lines, transfer.ImportLine{Line: i + 1, Memory: core.Memory{
				Content: fmt.Sprintf("%s (note %d)", strings.Join(words, " "), k), Type: types[r.IntN(len(types))],
				Tags: []string{benchWords[r.IntN(len(benchWords))]}, Importance: float64(r.IntN(10)) / 10, Confidence: 1,
				SourceType: "manual", Version: 1, CreatedAt: at, UpdatedAt: at, ExtractionStatus: "none",
			}})
		}
		if _, err := tr.Import(context.Background(), lines, core.Actor{Name: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("generated %d memories in %v", n, time.Since(start))
}

// benchModel is the root model at 120×40 over svc with its first load done.
func benchModel(b *testing.B, ap *app.App) *Model {
	m := New(Options{Client: client.Local(ap, pane.LocalOptions), Addr: "127.0.0.1:3850", Theme: themes.MustBuiltin("dark")})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// searchResult types query into the Recall box and returns the message
// carrying its results (running the debounce and the search itself).
func searchResult(b *testing.B, m *Model, query string) tea.Msg {
	m.Update(keyPress("/"))
	var last tea.Cmd
	for _, r := range query {
		_, last = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	// The last keystroke's batch holds the debounce tick; run it, then the search.
	for _, msg := range tuitest.RunAll(last) {
		if _, cmd := m.Update(msg); cmd != nil {
			for _, res := range tuitest.RunAll(cmd) {
				if fmt.Sprintf("%T", res) == "recall.resultsMsg" {
					return res
				}
			}
		}
	}
	b.Fatal("no search result")
	return nil
}

// BenchmarkSearchResultRender is the UI's share of a search on 100k
// memories: applying the results message and rendering the frame.
func BenchmarkSearchResultRender(b *testing.B) {
	svc := benchService(b)
	m := benchModel(b, svc)
	res := searchResult(b, m, "postgres deploy")
	for b.Loop() {
		m.Update(res)
		_ = m.View()
	}
}

// BenchmarkKeystrokeRender is one keystroke in the search box: Update
// (the text input, scheduling the debounced search) and the frame.
func BenchmarkKeystrokeRender(b *testing.B) {
	svc := benchService(b)
	m := benchModel(b, svc)
	m.Update(keyPress("/"))
	keys := []tea.KeyPressMsg{{Code: 'x', Text: "x"}, {Code: tea.KeyBackspace}}
	i := 0
	for b.Loop() {
		m.Update(keys[i%2])
		_ = m.View()
		i++
	}
}

// BenchmarkSearch is the backend's share: one hybrid recall with explain
// on 100k memories, as the search command runs it.
func BenchmarkSearch(b *testing.B) {
	l := client.Local(benchService(b), pane.LocalOptions)
	for b.Loop() {
		if _, err := l.Recall(context.Background(), core.RecallInput{Query: "postgres deploy", Limit: pane.RecallLimit, Explain: true, NoTracking: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecentList is the empty-query list (the first screen).
func BenchmarkRecentList(b *testing.B) {
	l := client.Local(benchService(b), pane.LocalOptions)
	for b.Loop() {
		if _, err := l.Recent(context.Background(), core.MemoryFilter{}, pane.RecallLimit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPage is what a list pays to reach any row of 100k
// memories: the first page with the total (the list's header), a page
// half-way down read by cursor (scrolling, or G then k), the last page
// (G), and a page of the audit trail by cursor, each pane.PageRows rows,
// as the Recall and History panes ask for them. Issue 30 asks ≤ 50 ms.
func BenchmarkListPage(b *testing.B) {
	l := client.Local(benchService(b), pane.LocalOptions)
	ctx := context.Background()
	// A cursor half-way down: walk there a page at a time once.
	mid := ""
	for i := 0; i < benchMemories/2/pane.PageRows; i++ {
		pg, err := l.Page(ctx, core.MemoryFilter{}, core.PageQuery{Before: mid, Limit: pane.PageRows}, false)
		if err != nil || len(pg.Cursors) == 0 {
			b.Fatalf("walk: %v", err)
		}
		mid = pg.Cursors[len(pg.Cursors)-1]
	}
	hist, err := l.HistoryPage(ctx, core.HistorySearch{}, core.PageQuery{Limit: pane.PageRows}, false)
	if err != nil || len(hist.Cursors) == 0 {
		b.Fatalf("history: %v", err)
	}
	// History oldest first (o): its first page, from which the next.
	histOld, err := l.HistoryPage(ctx, core.HistorySearch{}, core.PageQuery{Limit: pane.PageRows, Oldest: true}, false)
	if err != nil || len(histOld.Cursors) == 0 {
		b.Fatalf("history oldest first: %v", err)
	}
	histOld2, err := l.HistoryPage(ctx, core.HistorySearch{}, core.PageQuery{Before: histOld.Cursors[len(histOld.Cursors)-1], Limit: pane.PageRows, Oldest: true}, false)
	if err != nil || len(histOld2.Cursors) == 0 {
		b.Fatalf("history oldest first, second page: %v", err)
	}
	historyPage := func(p core.PageQuery) (int, error) {
		pg, err := l.HistoryPage(ctx, core.HistorySearch{}, p, false)
		if err != nil {
			return 0, err
		}
		return len(pg.History), nil
	}
	for _, c := range []struct {
		name string
		read func() (int, error)
	}{
		{"first+total", func() (int, error) {
			pg, err := l.Page(ctx, core.MemoryFilter{}, core.PageQuery{Limit: pane.PageRows}, true)
			if err == nil && pg.Total < benchMemories {
				b.Fatalf("total %d", pg.Total)
			}
			return pageLen(pg, err)
		}},
		{"middle", func() (int, error) {
			return pageLen(l.Page(ctx, core.MemoryFilter{}, core.PageQuery{Before: mid, Limit: pane.PageRows}, false))
		}},
		{"last", func() (int, error) {
			return pageLen(l.Page(ctx, core.MemoryFilter{}, core.PageQuery{Last: true, Limit: pane.PageRows}, false))
		}},
		{"history", func() (int, error) {
			return historyPage(core.PageQuery{Before: hist.Cursors[len(hist.Cursors)-1], Limit: pane.PageRows})
		}},
		{"history-oldest", func() (int, error) {
			return historyPage(core.PageQuery{Before: histOld.Cursors[len(histOld.Cursors)-1], Limit: pane.PageRows, Oldest: true})
		}},
		{"history-oldest-last", func() (int, error) {
			return historyPage(core.PageQuery{Last: true, Limit: pane.PageRows, Oldest: true})
		}},
		{"history-oldest-above", func() (int, error) {
			return historyPage(core.PageQuery{After: histOld2.Cursors[len(histOld2.Cursors)-1], Limit: pane.PageRows, Oldest: true})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if n, err := c.read(); err != nil || n != pane.PageRows {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}

func pageLen(pg *core.MemoryPage, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return len(pg.Memories), nil
}

// Sizes of the queue benchmarks: a busy queue and a review backlog.
const (
	benchJobs      = 10_000
	benchProposals = 1_000
)

// queueService is a temp store with benchJobs jobs in every status and
// benchProposals pending proposals (a fifth of them updates of a seeded
// memory, so the preview draws the side-by-side diff).
func queueService(b *testing.B) *app.App {
	b.Helper()
	ap, db := tuitest.OpenApp(b, b.TempDir())
	tuitest.Seed(b, ap)
	ctx := context.Background()
	statuses := []string{storage.JobCompleted, storage.JobCompleted, storage.JobCompleted, storage.JobPending, storage.JobDead, storage.JobLeased}
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		for i := range benchJobs {
			at := storage.FormatTime(fixedNow.Add(-time.Duration(i) * time.Second))
			st := statuses[i%len(statuses)]
			var errMsg any
			if st == storage.JobDead {
				errMsg = fmt.Sprintf("provider: timed out after 90s (attempt %d)", i)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memory_jobs (id, memory_id, job_type, status, attempts, max_attempts,
				error, created_at, updated_at) VALUES (?,?,?,?,1,3,?,?,?)`,
				fmt.Sprintf("job-%06d", i), fmt.Sprintf("mem-%06d", i), jobs.Extract, st, errMsg, at, at); err != nil {
				return err
			}
		}
		for i := range benchProposals {
			p := &storage.Proposal{ID: fmt.Sprintf("prop-%06d", i), SourceMemoryID: idSQLite, Action: extract.ActionAdd,
				Fact:       fmt.Sprintf("fact number %d: the deploy needs VPN access and a hardware key on staging", i),
				Confidence: float64(i%100) / 100, Shadow: true, CreatedAt: storage.FormatTime(fixedNow.Add(-time.Duration(i) * time.Second))}
			if i%5 == 0 {
				p.Action, p.TargetMemoryID, p.TargetVersion, p.ContradictionRisk = extract.ActionUpdate, idPostgres, 1, true
				p.Fact = fmt.Sprintf("postgres runs on port %d in staging; production uses the default 5432", 5000+i)
			}
			if err := storage.InsertProposal(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return ap
}

// paneModel is the root model at 120×40 on pane i with its loads done.
func paneModel(b *testing.B, ap *app.App, i int) *Model {
	m := New(Options{Client: client.Local(ap, pane.LocalOptions), Addr: "127.0.0.1:3850", Theme: themes.MustBuiltin("dark"), Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, p := range m.panes {
		applyAll(m, p.Init())
	}
	_, cmd := m.Update(keyPress(fmt.Sprint(i + 1)))
	applyAll(m, cmd)
	// The proposals preview loads its target after the list.
	applyAll(m, m.panes[i].Refresh(pane.Change{}))
	return m
}

// applyAll runs cmd and feeds its messages to m, skipping timers.
func applyAll(m *Model, cmd tea.Cmd) {
	for _, msg := range runAllNoTicks(cmd) {
		_, next := m.Update(msg)
		if next != nil {
			for _, msg := range runAllNoTicks(next) {
				m.Update(msg)
			}
		}
	}
}

// runAllNoTicks is runAll that does not wait on timers (ticks, spinners,
// the change stream): only commands that finish within 200 ms count.
func runAllNoTicks(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(200 * time.Millisecond):
		return nil
	}
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runAllNoTicks(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// BenchmarkJobsFrame is one frame of the Jobs pane over 10k jobs (the
// newest 1,000 loaded).
func BenchmarkJobsFrame(b *testing.B) {
	m := paneModel(b, queueService(b), 2)
	if !strings.Contains(stripANSI(m.Render()), "dead ") {
		b.Fatalf("no queue on screen:\n%s", stripANSI(m.Render()))
	}
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkJobsRefresh is one live refresh of the Jobs pane: the backend
// read of the queue and its counts, applied, and the frame.
func BenchmarkJobsRefresh(b *testing.B) {
	m := paneModel(b, queueService(b), 2)
	for b.Loop() {
		applyAll(m, m.panes[2].Refresh(pane.Change{}))
		_ = m.View()
	}
}

// BenchmarkProposalsFrame is one frame of the Proposals pane with 1,000
// pending proposals, an UPDATE selected (side by side and word diff).
func BenchmarkProposalsFrame(b *testing.B) {
	m := paneModel(b, queueService(b), 4)
	if s := stripANSI(m.Render()); !strings.Contains(s, "1000 pending proposals") || !strings.Contains(s, "current 0000a001") {
		b.Fatalf("no proposals on screen:\n%s", s)
	}
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkProposalsRefresh is one live refresh of the Proposals pane.
func BenchmarkProposalsRefresh(b *testing.B) {
	m := paneModel(b, queueService(b), 4)
	for b.Loop() {
		applyAll(m, m.panes[4].Refresh(pane.Change{}))
		_ = m.View()
	}
}
