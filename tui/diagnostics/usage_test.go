package diagnostics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
)

// A chosen model's calls and tokens per day show on the pane (issue 34),
// with the daily budget and, once it is spent, that the heuristic learns
// meanwhile.
func TestDiagnosticsShowsModelUsePerDay(t *testing.T) {
	h := shelltest.New(t, shelltest.Options{Width: 120, Height: 120})
	openDiagnostics(h)
	if s := h.Screen(); !strings.Contains(s, "Model use, last 7 days · 0 of 300,000 tokens today") || !strings.Contains(s, "no model calls") {
		t.Fatalf("without a model:\n%s", s)
	}
	ctx := context.Background()
	today := h.App.Service.Now().UTC().Format("2006-01-02")
	err := h.DB.WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.AddModelUsage(ctx, tx, storage.ModelUsage{Day: today, Provider: "anthropic", Calls: 12, Failed: 1,
			InputTokens: config.DefaultPipelineV2DailyTokenBudget, OutputTokens: 4000}); err != nil {
			return err
		}
		return storage.AddModelUsage(ctx, tx, storage.ModelUsage{Day: "2026-03-13", Provider: "anthropic", Calls: 3, InputTokens: 9000, OutputTokens: 700})
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Press("R")
	s := h.Screen()
	for _, want := range []string{"Model use, last 7 days · 304,000 of 300,000 tokens today", "today's budget is spent",
		today + "  anthropic          12        1    300,000      4,000",
		"2026-03-13  anthropic           3        0      9,000        700"} {
		if !strings.Contains(s, want) {
			t.Fatalf("no %q on the pane:\n%s", want, s)
		}
	}
}
