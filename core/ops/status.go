package ops

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/storage"
)

// QueueCounts counts memory_jobs by status (pending, leased, completed,
// failed, dead), every status present even when zero (/health and
// /api/status).
func (s *Ops) QueueCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{"pending": 0, "leased": 0, "completed": 0, "failed": 0, "dead": 0}
	counts, err := storage.CountJobsByStatus(ctx, s.svc.DB().Reader())
	if err != nil {
		return nil, fmt.Errorf("queue counts: %w", err)
	}
	for st, n := range counts {
		out[st] = n
	}
	return out, nil
}

// ProjectCounts counts the memories f selects in each project ("" for
// memories of no project): where they are when a project has none
// (GET /api/memories/projects, cairn list).
func (s *Ops) ProjectCounts(ctx context.Context, f storage.MemoryFilter) (map[string]int, error) {
	return storage.CountByProject(ctx, s.svc.DB().Reader(), f)
}

// PipelineStatus is /api/pipeline/status: the pipeline's mode, its
// workers, the queue by status and by type, and the extraction provider
// as the workers last saw it; a chosen model's calls and tokens per day
// (the last week) and whether today's budget is spent (the heuristic then
// learns).
func (s *Ops) PipelineStatus(ctx context.Context) (map[string]any, error) {
	byStatus, byType, err := s.jobs.Counts(ctx)
	if err != nil {
		return nil, err
	}
	usage, err := s.ModelUsage(ctx)
	if err != nil {
		return nil, err
	}
	rt := s.svc.PipelineRuntime()
	st := rt.State()
	return map[string]any{
		"mode":              s.svc.PipelineMode(),
		"workersRunning":    st.WorkersRunning,
		"workers":           rt.Workers(),
		"queue":             byStatus,
		"queueByType":       byType,
		"provider":          st.Provider,
		"providerAvailable": st.Available,
		"providerError":     st.ProviderError,
		"lastError":         st.LastError,
		"lastErrorAt":       st.LastErrorAt,
		"processed":         st.Processed,
		"failed":            st.Failed,
		"allowUpdateDelete": s.svc.Config().PipelineV2.AllowUpdateDelete,
		"modelUsage":        usage.ModelUsage,
		"dailyTokenBudget":  usage.DailyTokenBudget,
		"tokensToday":       usage.TokensToday,
		"budgetSpent":       usage.BudgetSpent,
	}, nil
}
