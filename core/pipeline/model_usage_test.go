package pipeline_test

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/storage"
)

// The pipeline status shows a model's calls and tokens per day, the
// budget, and whether today's is spent.
func TestPipelineStatusShowsModelUsage(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Embedding.Provider = "none"; c.PipelineV2.DailyTokenBudget = 5000 })
	today := apitest.ClockStart.Format("2006-01-02")
	if err := e.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
		if err := storage.AddModelUsage(context.Background(), tx, storage.ModelUsage{Day: today, Provider: "claude-code/haiku", Calls: 3, InputTokens: 4000, OutputTokens: 1200}); err != nil {
			return err
		}
		return storage.AddModelUsage(context.Background(), tx, storage.ModelUsage{Day: "2026-02-27", Provider: "claude-code/haiku", Calls: 1, InputTokens: 10, OutputTokens: 5})
	}); err != nil {
		t.Fatal(err)
	}
	st := e.Get(t, "/api/pipeline/status").Want(t, 200)
	usage, _ := st.JSON["modelUsage"].([]any)
	if len(usage) != 2 || st.Num("tokensToday") != 5200 || st.Num("dailyTokenBudget") != 5000 || !st.Bool("budgetSpent") {
		t.Fatalf("status: %s", st)
	}
	if u := usage[0].(map[string]any); u["day"] != today || u["calls"] != float64(3) || u["inputTokens"] != float64(4000) {
		t.Fatalf("today's usage: %v", u)
	}
}
