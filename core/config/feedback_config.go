package config

import (
	"fmt"
	"strconv"
)

// FeedbackConfig configures aspect feedback (docs/design/pipeline.md,
// "Aspect feedback"; core/ranker/feedback.go): at session end, the
// aspects of memories the session's scoring found used gain weight;
// aspects unconfirmed for StaleDays lose it, every DecayIntervalSessions
// scored sessions.
type FeedbackConfig struct {
	// Enabled keeps the weights (raised on confirmation, decayed).
	Enabled bool `toml:"enabled"`
	// WeightDelta is added to an aspect's weight per confirmed memory.
	WeightDelta float64 `toml:"weight_delta" range:"0,1"`
	// MinWeight and MaxWeight bound every weight; decay stops at MinWeight.
	MinWeight float64 `toml:"min_weight" range:"0,1"`
	MaxWeight float64 `toml:"max_weight" range:"0,1"`
	// DecayEnabled lowers, by DecayRate, the weight of aspects not
	// confirmed for StaleDays days.
	DecayEnabled bool    `toml:"decay_enabled"`
	DecayRate    float64 `toml:"decay_rate" range:"0,1"`
	StaleDays    int     `toml:"stale_days" range:"1,3650"`
	// DecayIntervalSessions: decay runs once every so many scored
	// sessions.
	DecayIntervalSessions int `toml:"decay_interval_sessions" range:"1,100000"`
	// RankWeight is how much the weight moves a candidate in the ranking
	// of session start and the prompt hook: its score is multiplied by
	// 1 + RankWeight × (weight − 0.5), from its aspects' highest weight.
	// 0 (the default) leaves the ranking alone; the replay benchmark could
	// not show a gain (README, "Aspect feedback").
	RankWeight float64 `toml:"rank_weight" range:"0,4"`
}

// DefaultFeedbackConfig is the feedback section of DefaultConfig.
func DefaultFeedbackConfig() FeedbackConfig {
	return FeedbackConfig{
		Enabled:               DefaultFeedbackEnabled,
		WeightDelta:           DefaultFeedbackWeightDelta,
		MinWeight:             DefaultFeedbackMinWeight,
		MaxWeight:             DefaultFeedbackMaxWeight,
		DecayEnabled:          DefaultFeedbackDecayEnabled,
		DecayRate:             DefaultFeedbackDecayRate,
		StaleDays:             DefaultFeedbackStaleDays,
		DecayIntervalSessions: DefaultFeedbackDecayIntervalSessions,
		RankWeight:            DefaultFeedbackRankWeight,
	}
}

// validate checks the rule between the feedback keys.
func (f FeedbackConfig) validate() error {
	if f.MinWeight > f.MaxWeight {
		return &ConfigError{Key: "feedback.min_weight", Value: strconv.FormatFloat(f.MinWeight, 'g', -1, 64),
			Reason: fmt.Sprintf("must not exceed feedback.max_weight (%g)", f.MaxWeight)}
	}
	return nil
}
