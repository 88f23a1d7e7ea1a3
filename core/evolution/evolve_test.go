package evolution

import (
	"math"
	"testing"
	"time"
)

// Evidence's worked examples (docs/design/evolution.md, "Evidence"):
// confidence × reinforcement × staleness.
func TestEvidenceSeedExamples(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	days := func(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }
	for _, c := range []struct {
		name       string
		confidence float64
		reinforced int64
		age        int
		pinned     bool
		want       float64
	}{
		{"stated, 5 days old", ConfidenceStated, 0, 5, false, 1.0},
		{"stated, 5 days old, reinforced 3 times", ConfidenceStated, 3, 5, false, 1.3},
		{"observed, 200 days old", ConfidenceObserved, 0, 200, false, 0.45},
		{"reinforcement caps at 1.5", ConfidenceStated, 12, 1, false, 1.5},
		{"a year old or more: 0.3", ConfidenceStated, 0, 800, false, 0.3},
		{"30 days: still fresh", ConfidenceStated, 0, 30, false, 1},
		{"pinned never goes stale", ConfidenceInferred, 0, 800, true, 0.5},
	} {
		got := Evidence(c.confidence, c.reinforced, days(c.age), c.pinned, now)
		if math.Abs(got-c.want) > 0.005 {
			t.Errorf("%s: %.3f, want %.2f", c.name, got, c.want)
		}
	}
}
