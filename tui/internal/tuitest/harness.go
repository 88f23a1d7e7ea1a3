// Package tuitest drives cairn's terminal UI in tests the way the tea
// runtime does, but synchronously and without sitting out real time: the
// UI gets a fake Clock, so the Harness can tell a timer from real I/O. It
// runs I/O to completion, keeps timers on a fake time line that only moves
// when it fires them, and runs the wait for live changes in the
// background. It also holds the shared fixtures: a seeded store, the
// pipeline's jobs and proposals, a failing client.
//
// The package does not import tui (tui's own tests use it); the root model
// is built by the caller and driven through Root.
package tuitest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/pane"
)

// Root is what the Harness needs of the root model (tui.Model).
type Root interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (tea.Model, tea.Cmd)
	// Render is the whole screen.
	Render() string
	// Close ends the live change subscription.
	Close()
}

// Env is what a Root is built from.
type Env struct {
	Client client.Client
	// Addr is the API address the status bar shows (tui.Options.Addr).
	Addr  string
	Theme *themes.Theme
	// Now is pinned to FixedNow, so ages and goldens are stable.
	Now   func() time.Time
	Clock pane.Clock
	// Project is Options.Project (the UI's current project).
	Project string
	// Types are the memory types the form accepts, from the service's
	// configuration as main reads them (tui.Options.Types).
	Types []string
}

// Options configure New.
type Options struct {
	// Theme is a built-in theme's name; empty is dark.
	Theme string
	// Width and Height default to 80×24.
	Width, Height int
	// Client replaces the Local client over the seeded service.
	Client func(ap *app.App) client.Client
	// NoSeed leaves the store empty.
	NoSeed bool
	// Project is the UI's current project (tui.Options.Project).
	Project string
	// Config adjusts the service's configuration (connectors.roots).
	Config func(*config.Config)
}

// Horizon is how much UI time Run lets pass after a message: what a
// person sees right after a keypress (the search debounce, the coalesced
// refresh after a change, spinner frames). Longer timers (pollers, the
// status tick, a flash's expiry) wait for PumpUntil or Advance.
const Horizon = 400 * time.Millisecond

// CmdLimit bounds how long the Harness waits for one command. Commands
// are I/O and end by themselves; one that does not is a timer or a wait
// that bypasses the Clock, and fails the test instead of hanging it.
const CmdLimit = 30 * time.Second

// maxRounds bounds the message loop of one settle, so a command that keeps
// re-issuing itself fails the test instead of hanging it.
const maxRounds = 200

// Harness drives a root model like the tea runtime does, synchronously:
// send a message, run the returned commands, feed their messages back.
type Harness[M Root] struct {
	// T is the test the harness fails.
	T *testing.T
	// M is the root model under test.
	M M
	// App, Svc and DB are the store behind the client.
	App *app.App
	Svc *core.Service
	DB  *storage.DB
	// Sent is every message delivered to the model, in order.
	Sent []tea.Msg
	// Quit is set when a command returned tea.QuitMsg.
	Quit bool

	now        time.Time // the fake time line: moves only when a timer fires
	timers     []timer
	seq        int
	late       chan tea.Msg // what background waits returned
	done       chan struct{}
	background int // messages delivered from background waits
}

type timer struct {
	at  time.Time
	seq int
	fn  func(time.Time) tea.Msg
}

// New opens a store in a temporary folder (seeded unless o.NoSeed), builds
// the root with build, sizes it and runs its Init.
func New[M Root](t *testing.T, o Options, build func(Env) M) *Harness[M] {
	t.Helper()
	if o.Theme == "" {
		o.Theme = "dark"
	}
	if o.Width == 0 {
		o.Width, o.Height = 80, 24
	}
	ap, db := OpenAppWith(t, t.TempDir(), o.Config)
	svc := ap.Service
	if !o.NoSeed {
		Seed(t, ap)
	}
	var c client.Client = client.Local(ap, pane.LocalOptions)
	if o.Client != nil {
		c = o.Client(ap)
	}
	m := build(Env{Client: c, Addr: Addr, Theme: themes.MustBuiltin(o.Theme), Now: func() time.Time { return FixedNow }, Clock: Clock{}, Project: o.Project,
		Types: core.Types(svc.Config().Memory.ExtraTypes)})
	h := &Harness[M]{T: t, M: m, App: ap, Svc: svc, DB: db, now: FixedNow, late: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() { close(h.done) })
	t.Cleanup(m.Close)
	h.Send(tea.WindowSizeMsg{Width: o.Width, Height: o.Height})
	h.Run(m.Init())
	return h
}

// Send delivers msg and runs what it returns.
func (h *Harness[M]) Send(msg tea.Msg) {
	h.T.Helper()
	h.Run(func() tea.Msg { return msg })
}

// Run executes cmd and feeds its messages back until only timers and
// background waits are left, then fires the timers due within Horizon.
func (h *Harness[M]) Run(cmd tea.Cmd) {
	h.T.Helper()
	h.settle(cmd)
	limit := h.now.Add(Horizon)
	for h.fireNext(limit) {
	}
}

// Collect runs cmds as Run would but returns their messages (batches
// flattened) instead of delivering them; timers among them fire at once.
func (h *Harness[M]) Collect(cmds ...tea.Cmd) []tea.Msg {
	h.T.Helper()
	return h.collect(cmds, true)
}

// PumpUntil lets time pass until cond holds and reports whether it does:
// it delivers what the background waits (the live change stream) return
// and fires timers in order, up to d of UI time after the last background
// message, and waits for background messages up to d of real time.
func (h *Harness[M]) PumpUntil(d time.Duration, cond func() bool) bool {
	h.T.Helper()
	deadline := time.After(d)
	budget := h.now.Add(d)
	for !cond() {
		select {
		case msg := <-h.late:
			h.deliver(msg)
			budget = h.now.Add(d)
			continue
		default:
		}
		if h.fireNext(budget) {
			continue
		}
		select {
		case msg := <-h.late:
			h.deliver(msg)
			budget = h.now.Add(d)
		case <-deadline:
			return cond()
		}
	}
	return true
}

// Advance lets d of UI time pass: every timer due by then fires, in order,
// and background messages that have arrived are delivered.
func (h *Harness[M]) Advance(d time.Duration) {
	h.T.Helper()
	end := h.now.Add(d)
	for {
		for len(h.late) > 0 {
			h.deliver(<-h.late)
		}
		if !h.fireNext(end) {
			break
		}
	}
	h.now = end
}

// Background is how many messages background waits have delivered.
func (h *Harness[M]) Background() int { return h.background }

func (h *Harness[M]) deliver(msg tea.Msg) {
	h.T.Helper()
	h.background++
	h.settle(func() tea.Msg { return msg })
}

// fireNext fires the earliest timer due by limit, moving the time line to
// it; false when there is none.
func (h *Harness[M]) fireNext(limit time.Time) bool {
	h.T.Helper()
	i := -1
	for j, t := range h.timers {
		if !t.at.After(limit) && (i < 0 || t.at.Before(h.timers[i].at) || t.at.Equal(h.timers[i].at) && t.seq < h.timers[i].seq) {
			i = j
		}
	}
	if i < 0 {
		return false
	}
	t := h.timers[i]
	h.timers = slices.Delete(h.timers, i, i+1)
	if t.at.After(h.now) {
		h.now = t.at
	}
	h.settle(func() tea.Msg { return t.fn(t.at) })
	return true
}

// settle runs cmd and feeds its messages back, round by round (breadth
// first, like the runtime's interleaving), until no command is left but
// timers and background waits.
func (h *Harness[M]) settle(cmd tea.Cmd) {
	h.T.Helper()
	queue := h.collect([]tea.Cmd{cmd}, false)
	for round := 0; len(queue) > 0; round++ {
		if round > maxRounds {
			h.T.Fatalf("messages keep coming: %T", queue[0])
		}
		var next []tea.Cmd
		for _, msg := range queue {
			h.Sent = append(h.Sent, msg)
			if _, ok := msg.(tea.QuitMsg); ok {
				h.Quit = true
				continue
			}
			_, c := h.M.Update(msg)
			next = append(next, c)
		}
		queue = h.collect(next, false)
	}
}

// collect runs cmds concurrently, as the runtime does, waits for them all
// and returns their messages, batches flattened. Timers are kept on the
// time line (or fired at once when fire is set); waits go to the
// background.
func (h *Harness[M]) collect(cmds []tea.Cmd, fire bool) []tea.Msg {
	h.T.Helper()
	got := make([]tea.Msg, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c()
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(CmdLimit):
		h.T.Fatalf("a command did not return within %v: a timer or a wait that bypasses the clock?", CmdLimit)
	}
	var out []tea.Msg
	for _, msg := range got {
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			out = append(out, h.collect(msg, fire)...)
		case timerMsg:
			if fire {
				out = append(out, msg.fn(h.now.Add(msg.d)))
				continue
			}
			h.seq++
			h.timers = append(h.timers, timer{at: h.now.Add(msg.d), seq: h.seq, fn: msg.fn})
		case waitMsg:
			go func() {
				m := msg.cmd()
				select {
				case h.late <- m:
				case <-h.done:
				}
			}()
		default:
			out = append(out, msg)
		}
	}
	return out
}

// KeyPress is the key named s: "enter", "esc", "tab", "shift+tab",
// "space", "down", "end", "ctrl+x" or one character.
func KeyPress(s string) tea.KeyPressMsg {
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
		panic(fmt.Sprintf("KeyPress(%q)", s))
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// Press sends named keys: "enter", "ctrl+s", "j", ...
func (h *Harness[M]) Press(keys ...string) {
	h.T.Helper()
	for _, k := range keys {
		h.Send(KeyPress(k))
	}
}

// TypeText types s one character at a time.
func (h *Harness[M]) TypeText(s string) {
	h.T.Helper()
	for _, r := range s {
		if r == ' ' {
			h.Send(KeyPress("space"))
			continue
		}
		h.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// Screen is the current frame without colours.
func (h *Harness[M]) Screen() string { return ansi.Strip(h.M.Render()) }

// Get reads memory id (deleted ones too) from the store.
func (h *Harness[M]) Get(id string) *core.Memory {
	h.T.Helper()
	m, err := h.Svc.Get(context.Background(), id, true)
	if err != nil {
		h.T.Fatal(err)
	}
	return m
}

// SelectedLine is the screen's line with the selection marker.
func SelectedLine(screen string) string {
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(line, "› ") {
			return line
		}
	}
	return ""
}

// SelectRow moves a list's cursor down (j) until a line marked as
// selected ("› ") contains text.
func (h *Harness[M]) SelectRow(text string) {
	h.T.Helper()
	for range 10 {
		for _, line := range strings.Split(h.Screen(), "\n") {
			if strings.HasPrefix(line, "› ") && strings.Contains(line, text) {
				return
			}
		}
		h.Press("j")
	}
	h.T.Fatalf("no row with %q:\n%s", text, h.Screen())
}

// RunAll runs cmd outside a Harness and returns its messages, batches
// flattened, waiting for each command in turn (with the real clock, for
// the ticks too). Benchmarks use it to prime a model.
func RunAll(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, RunAll(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}
