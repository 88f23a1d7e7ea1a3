package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/backend"
)

// fixedNow is the clock of every UI test, so ages and goldens are stable.
var fixedNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// cmdTimeout is how long the harness waits for one command. Commands that
// take longer (the status tick, the wait for live changes) are set aside;
// their messages land in late and a test can pump them.
const cmdTimeout = 400 * time.Millisecond

// harness drives the root model like the tea runtime does, synchronously:
// send a message, run the returned commands, feed their messages back.
type harness struct {
	t    *testing.T
	m    *Model
	svc  *core.Service
	db   *storage.DB
	late chan tea.Msg
	// quit is set when a command returned tea.QuitMsg.
	quit bool
	// clipboard receives what tea.SetClipboard would copy.
	sent []tea.Msg
}

type harnessOpts struct {
	theme         string
	width, height int
	backend       func(svc *core.Service) backend.Backend
	noSeed        bool
}

func openService(t testing.TB, dir string) (*core.Service, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(dir, "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	svc := core.NewService(db, cfg, core.ServiceOptions{Now: func() time.Time { return fixedNow }})
	return svc, db
}

func newHarness(t *testing.T, o harnessOpts) *harness {
	t.Helper()
	if o.theme == "" {
		o.theme = "dark"
	}
	if o.width == 0 {
		o.width, o.height = 80, 24
	}
	svc, db := openService(t, t.TempDir())
	if !o.noSeed {
		seed(t, svc)
	}
	var b backend.Backend = backend.NewLocal(svc, "127.0.0.1:3850")
	if o.backend != nil {
		b = o.backend(svc)
	}
	m := New(Options{Backend: b, Theme: themes.MustBuiltin(o.theme), Version: "test", Now: func() time.Time { return fixedNow }})
	t.Cleanup(m.Close)
	h := &harness{t: t, m: m, svc: svc, db: db, late: make(chan tea.Msg, 256)}
	h.send(tea.WindowSizeMsg{Width: o.width, Height: o.height})
	h.run(m.Init())
	h.fixStatus()
	return h
}

// fixStatus replaces the measured status (its health is a latency) with a
// fixed one so renders are stable.
func (h *harness) fixStatus() {
	h.send(StatusMsg{Status: backend.Status{Addr: "127.0.0.1:3850", AuthMode: "local", Pipeline: "disabled",
		Embedding: "builtin", Memories: 6, Queue: 0, QueueKnown: true, Health: "db 1ms"}})
}

// seedMemories are the test corpus: fixed ids and times, so renders are
// the same on every run.
var seedMemories = []struct {
	id, content, typ string
	tags             []string
	imp              float64
	pinned           bool
	age              time.Duration
}{
	{"0195a1b2-0000-7000-8000-00000000a001", "postgres runs on port 5433 in staging; production uses the default 5432", "fact", []string{"infra", "db"}, 0.8, false, 3 * time.Hour},
	{"0195a1b2-0000-7000-8000-00000000a002", "We decided to use SQLite in WAL mode for the local store instead of Postgres", "decision", []string{"architecture"}, 0.9, true, 26 * time.Hour},
	{"0195a1b2-0000-7000-8000-00000000a003", "The operator prefers tabs over spaces in Go code, as gofmt does", "preference", []string{"style"}, 0.5, false, 5 * 24 * time.Hour},
	{"0195a1b2-0000-7000-8000-00000000a004", "Run the deploy with ops/deploy.sh --env staging; it needs VPN access", "procedural", []string{"infra", "deploy"}, 0.7, false, 20 * time.Minute},
	{"0195a1b2-0000-7000-8000-00000000a005", "Flaky test TestExportImportRoundTrip fails when TMPDIR is on tmpfs", "issue", []string{"tests"}, 0.6, false, 40 * 24 * time.Hour},
	{"0195a1b2-0000-7000-8000-00000000a006", "The HTTP API binds to 127.0.0.1:3850 by default\nand refuses non-loopback binds without team auth", "fact", []string{"api", "security"}, 0.75, false, 2 * time.Minute},
}

func seed(t testing.TB, svc *core.Service) {
	t.Helper()
	var lines []core.ImportLine
	for i, s := range seedMemories {
		at := storage.FormatTime(fixedNow.Add(-s.age))
		lines = append(lines, core.ImportLine{Line: i + 1, Memory: core.Memory{
			ID: s.id, Content: s.content, Type: s.typ, Tags: s.tags, Importance: s.imp, Pinned: s.pinned,
			Confidence: 1, Who: "claude-code", Project: "cairn", SourceType: "manual", Version: 1,
			CreatedAt: at, UpdatedAt: at, UpdatedBy: "claude-code", ExtractionStatus: "none",
		}})
	}
	if _, err := svc.Import(context.Background(), lines, core.Actor{Name: "seed", Type: core.ActorOperator}); err != nil {
		t.Fatal(err)
	}
}

// send delivers msg and runs what it returns.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	h.run(func() tea.Msg { return msg })
}

// maxRounds bounds the message loop of one run, so a command that keeps
// re-issuing itself fails the test instead of hanging it.
const maxRounds = 200

// run executes cmd and feeds its messages back, round by round (breadth
// first, like the runtime's interleaving), until nothing more arrives
// within cmdTimeout.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := h.collect([]tea.Cmd{cmd})
	for round := 0; len(queue) > 0; round++ {
		if round > maxRounds {
			h.t.Fatalf("messages keep coming: %T", queue[0])
		}
		var next []tea.Cmd
		for _, msg := range queue {
			h.sent = append(h.sent, msg)
			if _, ok := msg.(tea.QuitMsg); ok {
				h.quit = true
				continue
			}
			_, c := h.m.Update(msg)
			next = append(next, c)
		}
		queue = h.collect(next)
		// A slow command (a loaded machine, the race detector) may have
		// missed an earlier round's deadline: deliver what it sent since,
		// or a pane would stay busy and its spinner tick forever.
		for len(queue) > 0 && len(h.late) > 0 {
			queue = append(queue, <-h.late)
		}
	}
}

// collect runs cmds concurrently, as the runtime does, and returns the
// messages that arrive within cmdTimeout, batches flattened.
func (h *harness) collect(cmds []tea.Cmd) []tea.Msg {
	type result struct {
		i   int
		msg tea.Msg
	}
	var mu sync.Mutex
	gaveUp := false
	done := make(chan result, len(cmds))
	n := 0
	for i, c := range cmds {
		if c == nil {
			continue
		}
		n++
		go func() {
			msg := c()
			mu.Lock()
			defer mu.Unlock()
			if gaveUp {
				h.late <- msg
				return
			}
			done <- result{i, msg}
		}()
	}
	got := make([]tea.Msg, len(cmds))
	deadline := time.After(cmdTimeout)
wait:
	for ; n > 0; n-- {
		select {
		case r := <-done:
			got[r.i] = r.msg
		case <-deadline:
			break wait
		}
	}
	mu.Lock()
	gaveUp = true
	mu.Unlock()
	for len(done) > 0 {
		r := <-done
		got[r.i] = r.msg
	}
	var out []tea.Msg
	for _, msg := range got {
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			out = append(out, h.collect(msg)...)
		default:
			out = append(out, msg)
		}
	}
	return out
}

// pumpUntil feeds late messages until cond holds or d passes.
func (h *harness) pumpUntil(d time.Duration, cond func() bool) bool {
	h.t.Helper()
	deadline := time.After(d)
	for !cond() {
		select {
		case msg := <-h.late:
			h.send(msg)
		case <-deadline:
			return cond()
		}
	}
	return true
}

func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if mod, k, ok := strings.Cut(s, "+"); ok && mod == "ctrl" {
		return tea.KeyPressMsg{Code: rune(k[0]), Mod: tea.ModCtrl}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic(fmt.Sprintf("keyPress(%q)", s))
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// press sends named keys: "enter", "ctrl+s", "j", ...
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyPress(k))
	}
}

// typeText types s one character at a time.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		if r == ' ' {
			h.send(keyPress("space"))
			continue
		}
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the current frame without colours.
func (h *harness) screen() string { return stripANSI(h.m.Render()) }

func (h *harness) get(id string) *core.Memory {
	h.t.Helper()
	m, err := h.svc.Get(context.Background(), id, true)
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

func teaWindowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }
