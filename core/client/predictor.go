package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/sessions"
)

// PredictorStatus reads the learned ranker's part of GET
// /api/pipeline/status.
func (c *Remote) PredictorStatus(ctx context.Context) (*ranker.PredictorStatus, error) {
	var out struct {
		Predictor *ranker.PredictorStatus `json:"predictor"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/pipeline/status", nil, &out); err != nil {
		return nil, err
	}
	if out.Predictor == nil {
		return &ranker.PredictorStatus{}, nil
	}
	return out.Predictor, nil
}

// AspectFeedback reads the aspect feedback's part of GET
// /api/pipeline/status: whether it is on, its rank weight, and what it
// did since the server started.
func (c *Remote) AspectFeedback(ctx context.Context) (*ranker.AspectFeedbackReport, error) {
	var out struct {
		Feedback *ranker.AspectFeedbackReport `json:"aspect_feedback"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/pipeline/status", nil, &out); err != nil {
		return nil, err
	}
	if out.Feedback == nil {
		return &ranker.AspectFeedbackReport{}, nil
	}
	return out.Feedback, nil
}

// Session implements Client with GET /api/sessions/{key}: the session with its transcript,
// checkpoints, offered memories and score.
func (c *Remote) Session(ctx context.Context, key string) (*sessions.Info, error) {
	var s sessions.Info
	if err := c.do(ctx, http.MethodGet, "/api/sessions/"+url.PathEscape(key), nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
