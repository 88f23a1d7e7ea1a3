package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/pane"
)

// firstFrameSizes are the store sizes BenchmarkFirstFrame runs on.
var firstFrameSizes = []int{10_000, 100_000}

// firstFrameService is a store of n memories imported in bulk: under
// CAIRN_BENCH_HOME/first-frame-N when set (kept for the next run), else in
// a temporary folder (seeding 100k takes about a minute).
func firstFrameService(b *testing.B, n int) *app.App {
	b.Helper()
	dir := b.TempDir()
	if home := os.Getenv("CAIRN_BENCH_HOME"); home != "" {
		dir = filepath.Join(home, fmt.Sprintf("first-frame-%d", n))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(dir, "memories.db")
	_, statErr := os.Stat(path)
	db, err := storage.Open(context.Background(), storage.Options{Path: path, NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ap := app.New(db, config.DefaultConfig(), app.Options{})
	svc := ap.Service
	if live, _, err := svc.MemoryTotals(context.Background()); err != nil || os.IsNotExist(statErr) || live < int64(n) {
		generate(b, ap.Transfer, n)
	}
	return ap
}

// BenchmarkFirstFrame is the time from starting the UI to the first
// complete frame at 80×24: the recent memories listed and the status bar's
// counts shown. Init's commands run concurrently, as the tea runtime runs
// them; timers never fire (they do not gate the first frame). The figure
// should not grow with the store: every query the first frame waits on is
// a page or a kept count.
//
//	go test ./tui -run '^$' -bench FirstFrame -benchtime 20x
func BenchmarkFirstFrame(b *testing.B) {
	for _, n := range firstFrameSizes {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			ap := firstFrameService(b, n)
			for b.Loop() {
				firstFrame(b, ap)
			}
		})
	}
}

// firstFrame starts a root model over svc and drives it until its frame
// shows the list and the counts.
func firstFrame(b *testing.B, ap *app.App) {
	m := New(Options{Client: client.Local(ap, pane.LocalOptions), Addr: "127.0.0.1:3850", Theme: themes.MustBuiltin("dark"), Clock: noTimers{}})
	defer m.Close()
	done := make(chan struct{})
	defer close(done)
	msgs := make(chan tea.Msg, 64)
	var run func(cmd tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			msg := cmd()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, c := range batch {
					run(c)
				}
				return
			}
			if msg != nil {
				select {
				case msgs <- msg:
				case <-done:
				}
			}
		}()
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	run(m.Init())
	timeout := time.After(30 * time.Second)
	for {
		frame := m.Render()
		if strings.Contains(frame, "· recent memories") && m.status.Health != "" {
			return
		}
		select {
		case msg := <-msgs:
			_, cmd := m.Update(msg)
			run(cmd)
		case <-timeout:
			b.Fatalf("no first frame after 30s:\n%s", stripANSI(frame))
		}
	}
}

// noTimers is a pane.Clock whose timers never fire and that never waits
// for live changes: the first frame must not depend on either.
type noTimers struct{}

func (noTimers) Tick(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
func (noTimers) Wait(tea.Cmd) tea.Cmd                                { return nil }
