package config

// ContinuityConfig configures session continuity
// (docs/design/pipeline.md, "Session continuity"): checkpoints of a
// session's state and the recovery digest a session gets back after a
// compaction or a resume.
type ContinuityConfig struct {
	Enabled bool `toml:"enabled"`
	// PromptInterval is how many prompts go between periodic checkpoints.
	PromptInterval int `toml:"prompt_interval" range:"1,1000"`
	// TimeInterval is the longest time between periodic checkpoints of a
	// session that keeps prompting.
	TimeInterval Duration `toml:"time_interval" range:"60s,1h"`
	// MaxCheckpointsPerSession keeps the newest; older ones are deleted.
	MaxCheckpointsPerSession int `toml:"max_checkpoints_per_session" range:"1,500"`
	// Retention deletes checkpoints older than this.
	Retention Duration `toml:"retention" range:"24h,2160h"`
	// RecoveryBudgetChars bounds the recovery digest of session start.
	RecoveryBudgetChars int `toml:"recovery_budget_chars" range:"200,10000"`
	// UseSignal is how a later prompt or the transcript counts as a use of
	// a memory the session was offered (its relevance, the learned
	// ranker's training signal): "weight", the memory's words the text
	// holds weigh UseMinWeight or more by inverse document frequency (a
	// memory written in the session does not count); "share", at least
	// two of its content words and a third of them.
	UseSignal string `toml:"use_signal" oneof:"weight,share"`
	// UseMinWeight is the weight the "weight" signal needs: the sum of
	// log(1 + N/(df+1)) over the shared words (about two rare words).
	UseMinWeight float64 `toml:"use_min_weight" range:"1,100"`
}

// DefaultContinuityConfig is the continuity section of DefaultConfig.
func DefaultContinuityConfig() ContinuityConfig {
	return ContinuityConfig{
		Enabled:                  DefaultContinuityEnabled,
		PromptInterval:           DefaultContinuityPromptInterval,
		TimeInterval:             Duration(DefaultContinuityTimeInterval),
		MaxCheckpointsPerSession: DefaultContinuityMaxCheckpoints,
		Retention:                Duration(DefaultContinuityRetention),
		RecoveryBudgetChars:      DefaultContinuityRecoveryBudgetChars,
		UseSignal:                DefaultContinuityUseSignal,
		UseMinWeight:             DefaultContinuityUseMinWeight,
	}
}
