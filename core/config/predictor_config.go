package config

// PredictorConfig configures the learned ranker (docs/design/pipeline.md,
// "Learned ranker"): a small model, trained in process on the per-memory
// relevance of scored sessions, that re-ranks the candidates of session
// start and of the prompt hook once it beats the baseline order on
// sessions it was not trained on.
type PredictorConfig struct {
	// Enabled runs the training worker and lets a model that beats the
	// baseline re-rank. Off, nothing is trained and the order is the
	// baseline's.
	Enabled bool `toml:"enabled"`
	// MinSessions is how many scored sessions (with relevance) a model
	// needs before it is trained.
	MinSessions int `toml:"min_sessions" range:"2,100000"`
	// RetrainEvery is how many newly scored sessions start a new training.
	RetrainEvery int `toml:"retrain_every" range:"1,10000000"`
	// Interval is how often the worker looks for newly scored sessions.
	Interval Duration `toml:"interval" range:"1s,24h"`
	// DriftMargin: once the model's moving NDCG@10 on sessions it was not
	// trained on falls this far below the baseline's, the baseline order
	// is back until the next training.
	DriftMargin float64 `toml:"drift_margin" range:"0,1"`
}

// DefaultPredictorConfig is the predictor section of DefaultConfig.
func DefaultPredictorConfig() PredictorConfig {
	return PredictorConfig{
		Enabled:      DefaultPredictorEnabled,
		MinSessions:  DefaultPredictorMinSessions,
		RetrainEvery: DefaultPredictorRetrainEvery,
		Interval:     Duration(DefaultPredictorInterval),
		DriftMargin:  DefaultPredictorDriftMargin,
	}
}
