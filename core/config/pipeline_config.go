package config

// PipelineV2Config configures the background extraction pipeline's worker:
// which model it uses, how it writes and how its job queue runs. The mode
// flags (enabled, shadow_mode, mutations_frozen) stay in [PipelineConfig].
type PipelineV2Config struct {
	// AllowUpdateDelete lets controlled-write mode apply UPDATE and DELETE
	// proposals (never against pinned memories); otherwise they are
	// recorded as blocked, for review.
	AllowUpdateDelete bool `toml:"allow_update_delete"`
	// MinFactConfidenceForWrite: facts below it are not written in
	// controlled-write mode (skippedReason low_fact_confidence).
	MinFactConfidenceForWrite float64 `toml:"min_fact_confidence_for_write" range:"0,1"`
	// Provider of the extraction and decision model. A model is used only
	// when the user chose it (here, or by answering `cairn install`): auto
	// is the built-in heuristic, which needs no model and spends nothing.
	Provider string `toml:"provider" oneof:"auto,heuristic,ollama,openai,anthropic,claude-code"`
	Model    string `toml:"model"`
	BaseURL  string `toml:"base_url"`
	APIKey   string `toml:"api_key"`
	// Timeout of one model call; capped at half the lease timeout.
	Timeout Duration `toml:"timeout" range:"1s,30m"`
	// Concurrency is how many jobs run at once.
	Concurrency int `toml:"concurrency" range:"1,8"`
	// PollInterval is how often an idle worker looks for jobs.
	PollInterval Duration `toml:"poll_interval" range:"10ms,10m"`
	// LeaseTimeout: a job leased longer than this is returned to the queue.
	LeaseTimeout Duration `toml:"lease_timeout" range:"1s,24h"`
	// MaxAttempts before a job is dead.
	MaxAttempts int `toml:"max_attempts" range:"1,20"`
	// DailyTokenBudget bounds what a chosen model spends a day (prompt and
	// answer tokens, every background call); once spent, the heuristic
	// extractor learns until the day ends (UTC), and the status says so.
	DailyTokenBudget int64 `toml:"daily_token_budget" range:"1000,1000000000"`
	// SemanticContradiction asks the model whether an UPDATE or DELETE
	// contradicts its target when the syntactic detector is negative and
	// the two share at least 3 content words; a positive verdict flags the
	// proposal for review. Not run with the heuristic provider.
	SemanticContradiction bool `toml:"semantic_contradiction"`
	// SemanticContradictionTimeout bounds one check (and never exceeds the
	// model call timeout).
	SemanticContradictionTimeout Duration `toml:"semantic_contradiction_timeout" range:"1s,10m"`
	// SemanticContradictionMinConfidence: verdicts below it are ignored.
	SemanticContradictionMinConfidence float64 `toml:"semantic_contradiction_min_confidence" range:"0,1"`
}

// DefaultPipelineV2Config returns the pipeline worker's defaults.
func DefaultPipelineV2Config() PipelineV2Config {
	return PipelineV2Config{
		MinFactConfidenceForWrite: DefaultPipelineV2MinFactConfidenceForWrite,
		Provider:                  DefaultPipelineV2Provider,
		Timeout:                   Duration(DefaultPipelineV2Timeout),
		Concurrency:               DefaultPipelineV2Concurrency,
		PollInterval:              Duration(DefaultPipelineV2PollInterval),
		LeaseTimeout:              Duration(DefaultPipelineV2LeaseTimeout),
		MaxAttempts:               DefaultPipelineV2MaxAttempts,
		DailyTokenBudget:          DefaultPipelineV2DailyTokenBudget,

		SemanticContradiction:              DefaultPipelineV2SemanticContradiction,
		SemanticContradictionTimeout:       Duration(DefaultPipelineV2SemanticContradictionTimeout),
		SemanticContradictionMinConfidence: DefaultPipelineV2SemanticContradictionMinConfidence,
	}
}
