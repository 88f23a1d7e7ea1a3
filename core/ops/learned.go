package ops

import (
	"context"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
)

// Learned is what cairn learned from the sessions it watched since the
// person last looked (GET /api/learned): the memories the pipeline wrote
// from a session's transcript after SeenThrough that were not kept since,
// newest first.
type Learned struct {
	// SeenThrough is the creation time of the newest learned memory the
	// person has seen; empty when they never looked.
	SeenThrough string `json:"seenThrough"`
	// Count is how many are new; Memories holds the newest of them.
	Count    int            `json:"count"`
	Memories []*core.Memory `json:"memories"`
}

// LearnedReview is what the person did with learned memories (POST
// /api/learned/review).
type LearnedReview struct {
	// Keep are memories reviewed and left as they are: no longer new.
	Keep []string `json:"keep,omitempty"`
	// SeenThrough marks every memory learned up to that time seen (the
	// newest one the person was shown), kept or not.
	SeenThrough string `json:"seenThrough,omitempty"`
}

// maxLearnedKeep bounds the ids of one review.
const maxLearnedKeep = 1000

// Learned returns what is new since the person last looked, with up to
// limit of the memories (0: the count only).
func (s *Ops) Learned(ctx context.Context, limit int) (*Learned, error) {
	r := s.svc.DB().Reader()
	seen, err := storage.Setting(ctx, r, storage.LearnedSeenKey)
	if err != nil {
		return nil, err
	}
	rows, n, err := storage.LearnedSince(ctx, r, core.PipelineActorName, seen, limit)
	if err != nil {
		return nil, err
	}
	out := &Learned{SeenThrough: seen, Count: n, Memories: make([]*core.Memory, 0, len(rows))}
	for _, m := range rows {
		out.Memories = append(out.Memories, core.ViewOf(m))
	}
	return out, nil
}

// ReviewLearned records a review: the kept memories are no longer new, and
// "last looked" advances to SeenThrough, or, once nothing new is left, to
// the newest learned memory (every one was kept or dropped). It returns
// what is new after it, with up to limit memories.
func (s *Ops) ReviewLearned(ctx context.Context, in LearnedReview, limit int) (*Learned, error) {
	if len(in.Keep) > maxLearnedKeep {
		return nil, core.Invalid("keep", "at most %d ids in one review", maxLearnedKeep)
	}
	for _, id := range in.Keep {
		if id == "" || len(id) > 200 {
			return nil, core.Invalid("keep", "an id is empty or too long")
		}
	}
	if in.SeenThrough != "" {
		t, err := wire.ParseTime(in.SeenThrough)
		if err != nil {
			return nil, core.Invalid("seenThrough", "not a time: %q", in.SeenThrough)
		}
		in.SeenThrough = storage.FormatTime(t)
	}
	now := storage.FormatTime(s.svc.Now())
	err := s.svc.DB().WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.KeepLearned(ctx, tx, in.Keep, now); err != nil {
			return err
		}
		seen, err := storage.Setting(ctx, tx, storage.LearnedSeenKey)
		if err != nil {
			return err
		}
		through := in.SeenThrough
		if through == "" {
			if _, n, err := storage.LearnedSince(ctx, tx, core.PipelineActorName, seen, 0); err != nil || n > 0 {
				return err
			}
			if through, err = storage.NewestLearned(ctx, tx, core.PipelineActorName); err != nil {
				return err
			}
		}
		if through <= seen {
			return nil
		}
		if err := storage.SetSetting(ctx, tx, storage.LearnedSeenKey, through, now); err != nil {
			return err
		}
		return storage.ForgetLearnedReviews(ctx, tx, through)
	})
	if err != nil {
		return nil, err
	}
	return s.Learned(ctx, limit)
}

// ModelUsage is a chosen model's calls and tokens per day over the last
// week, the daily budget and today's spending.
func (s *Ops) ModelUsage(ctx context.Context) (*wire.ModelUsageReport, error) {
	today := s.svc.Now().UTC()
	rows, err := storage.ModelUsageSince(ctx, s.svc.DB().Reader(), today.AddDate(0, 0, -6).Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	out := &wire.ModelUsageReport{ModelUsage: make([]wire.ModelUsage, 0, len(rows)), DailyTokenBudget: s.svc.Config().PipelineV2.DailyTokenBudget}
	for _, u := range rows {
		out.ModelUsage = append(out.ModelUsage, wire.ModelUsage(u))
		if u.Day == today.Format(time.DateOnly) {
			out.TokensToday += u.InputTokens + u.OutputTokens
		}
	}
	out.BudgetSpent = out.TokensToday >= out.DailyTokenBudget
	return out, nil
}
