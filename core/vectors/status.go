package vectors

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/storage"
)

// EmbeddingStatus describes the provider, the vector index and coverage.
type EmbeddingStatus struct {
	Provider   string         `json:"provider"`
	Model      string         `json:"model,omitempty"`
	Dimensions int            `json:"dimensions,omitempty"`
	Available  bool           `json:"available"`
	Error      string         `json:"error,omitempty"`
	ErrorAt    string         `json:"errorAt,omitempty"`
	Indexed    int            `json:"indexed"`
	IndexReady bool           `json:"indexReady"`
	Coverage   map[string]any `json:"coverage"`
	Tracker    map[string]any `json:"tracker"`
}

// EmbeddingStatus reports how embedding is doing.
func (v *Vectors) EmbeddingStatus(ctx context.Context) (*EmbeddingStatus, error) {
	st := &EmbeddingStatus{Provider: v.cfg.Provider}
	stats, err := storage.Stats(ctx, v.db.Reader())
	if err != nil {
		return nil, err
	}
	pending, err := v.CountPendingEmbeddings(ctx)
	if err != nil {
		return nil, err
	}
	cov := 0.0
	if stats.Total > 0 {
		cov = float64(stats.Total-pending) / float64(stats.Total)
	}
	if v.embedder == nil {
		st.Provider = "none"
		cov, pending = 0, stats.Total
	} else {
		st.Model, st.Dimensions = v.embedder.Model(), v.embedder.Dimensions()
		st.Available = true
		if pe := v.lastErr.Load(); pe != nil {
			st.Available = false
			st.Error, st.ErrorAt = pe.err.Error(), storage.FormatTime(pe.at)
		}
		if ix := v.ix.Load(); ix != nil {
			st.IndexReady, st.Indexed = true, ix.Len()
			if st.Dimensions == 0 {
				st.Dimensions = ix.Dim
			}
		}
	}
	st.Coverage = map[string]any{"total": stats.Total, "embedded": stats.Total - pending, "pending": pending, "ratio": cov}
	last := ""
	if ms := v.lastCycle.Load(); ms > 0 {
		last = storage.FormatTime(time.UnixMilli(ms))
	}
	st.Tracker = map[string]any{"processed": v.processed.Load(), "failed": v.failed.Load(), "lastCycleAt": last, "queueDepth": pending,
		"scans": v.scans.Load()}
	return st, nil
}
