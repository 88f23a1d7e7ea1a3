package client

import (
	"context"
	"net/http"
	"strconv"

	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/wire"
)

// Learned implements Client.
func (l *InProcess) Learned(ctx context.Context, limit int) (*ops.Learned, error) {
	return l.app.Ops.Learned(ctx, limit)
}

// ReviewLearned implements Client.
func (l *InProcess) ReviewLearned(ctx context.Context, in ops.LearnedReview, limit int) (*ops.Learned, error) {
	return l.app.Ops.ReviewLearned(ctx, in, limit)
}

// ModelUsage implements Client.
func (l *InProcess) ModelUsage(ctx context.Context) (*wire.ModelUsageReport, error) {
	return l.app.Ops.ModelUsage(ctx)
}

// Learned implements Client with GET /api/learned.
func (c *Remote) Learned(ctx context.Context, limit int) (*ops.Learned, error) {
	var out ops.Learned
	if err := c.do(ctx, http.MethodGet, "/api/learned?limit="+strconv.Itoa(limit), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReviewLearned implements Client with POST /api/learned/review.
func (c *Remote) ReviewLearned(ctx context.Context, in ops.LearnedReview, limit int) (*ops.Learned, error) {
	var out ops.Learned
	if err := c.do(ctx, http.MethodPost, "/api/learned/review?limit="+strconv.Itoa(limit), in, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ModelUsage implements Client with GET /api/pipeline/status, whose
// answer holds the model's use beside the pipeline's state.
func (c *Remote) ModelUsage(ctx context.Context) (*wire.ModelUsageReport, error) {
	var out wire.ModelUsageReport
	if err := c.do(ctx, http.MethodGet, "/api/pipeline/status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
