package config

import (
	"reflect"
	"testing"
	"time"
)

// TestDefaultConfigUsesTheConstants checks that DefaultConfig validates,
// that every key has the value of its Default* constant (durations from a
// time.Duration constant), and that a key without a constant is zero, so
// a default written as a literal, or wired to the wrong constant, fails.
func TestDefaultConfigUsesTheConstants(t *testing.T) {
	want := map[string]any{
		"server.addr":             DefaultAddr,
		"server.max_body_bytes":   DefaultServerMaxBodyBytes,
		"server.shutdown_timeout": DefaultServerShutdownTimeout,
		"server.read_timeout":     DefaultServerReadTimeout,
		"server.write_timeout":    DefaultServerWriteTimeout,
		"server.idle_timeout":     DefaultServerIdleTimeout,
		"server.max_concurrent":   DefaultServerMaxConcurrent,
		"server.queue_timeout":    DefaultServerQueueTimeout,

		"storage.synchronous":  DefaultStorageSynchronous,
		"storage.busy_timeout": DefaultStorageBusyTimeout,
		"storage.read_conns":   DefaultStorageReadConns,

		"auth.mode":              DefaultAuthMode,
		"auth.token_ttl":         DefaultAuthTokenTTL,
		"auth.rate_window":       DefaultAuthRateWindow,
		"auth.rate_forget":       DefaultAuthRateForget,
		"auth.rate_modify":       DefaultAuthRateModify,
		"auth.rate_batch_forget": DefaultAuthRateBatchForget,
		"auth.rate_admin":        DefaultAuthRateAdmin,
		"auth.rate_documents":    DefaultAuthRateDocuments,
		"documents.max_chunks":   DefaultDocumentsMaxChunks,

		"memory.default_importance":       DefaultMemoryImportance,
		"memory.recover_window":           DefaultMemoryRecoverWindow,
		"memory.forget_confirm_threshold": DefaultMemoryForgetConfirmThreshold,
		"memory.max_batch":                DefaultMemoryMaxBatch,
		"memory.supersede_attributes":     DefaultMemorySupersedeAttributes,
		"memory.evidence_weight":          DefaultMemoryEvidenceWeight,

		"guardrails.max_content_chars":     DefaultGuardrailsMaxContentChars,
		"guardrails.chunk_target_chars":    DefaultGuardrailsChunkTargetChars,
		"guardrails.max_remember_chars":    DefaultGuardrailsMaxRememberChars,
		"guardrails.recall_truncate_chars": DefaultGuardrailsRecallTruncateChars,

		"embedding.provider":         DefaultEmbeddingProvider,
		"embedding.timeout":          DefaultEmbeddingTimeout,
		"embedding.batch_size":       DefaultEmbeddingBatchSize,
		"embedding.tracker_interval": DefaultEmbeddingTrackerInterval,
		"embedding.tracker_batch":    DefaultEmbeddingTrackerBatch,

		"search.alpha":                 DefaultSearchAlpha,
		"search.min_score":             DefaultSearchMinScore,
		"search.min_vector_similarity": DefaultSearchMinVectorSimilarity,
		"search.top_k":                 DefaultSearchTopK,
		"search.decay_rate":            DefaultSearchDecayRate,
		"search.fusion":                DefaultSearchFusion,
		"search.coverage_weight":       DefaultSearchCoverageWeight,
		"search.speaker_weight":        DefaultSearchSpeakerWeight,
		"search.speaker_margin":        DefaultSearchSpeakerMargin,
		"search.neighbor_weight":       DefaultSearchNeighborWeight,
		"search.coverage_idf":          DefaultSearchCoverageIDF,
		"search.dampening":             DefaultSearchDampening,
		"search.keyword_index":         DefaultSearchKeywordIndex,
		"search.session_context":       DefaultSearchSessionContext,

		"graph.enabled":                          DefaultGraphEnabled,
		"graph.boost_weight":                     DefaultGraphBoostWeight,
		"continuity.enabled":                     DefaultContinuityEnabled,
		"continuity.prompt_interval":             DefaultContinuityPromptInterval,
		"continuity.time_interval":               DefaultContinuityTimeInterval,
		"continuity.max_checkpoints_per_session": DefaultContinuityMaxCheckpoints,
		"continuity.retention":                   DefaultContinuityRetention,
		"continuity.recovery_budget_chars":       DefaultContinuityRecoveryBudgetChars,
		"continuity.use_signal":                  DefaultContinuityUseSignal,
		"continuity.use_min_weight":              DefaultContinuityUseMinWeight,
		"predictor.enabled":                      DefaultPredictorEnabled,
		"predictor.min_sessions":                 DefaultPredictorMinSessions,
		"predictor.retrain_every":                DefaultPredictorRetrainEvery,
		"predictor.interval":                     DefaultPredictorInterval,
		"predictor.drift_margin":                 DefaultPredictorDriftMargin,
		"feedback.enabled":                       DefaultFeedbackEnabled,
		"feedback.weight_delta":                  DefaultFeedbackWeightDelta,
		"feedback.min_weight":                    DefaultFeedbackMinWeight,
		"feedback.max_weight":                    DefaultFeedbackMaxWeight,
		"feedback.decay_enabled":                 DefaultFeedbackDecayEnabled,
		"feedback.decay_rate":                    DefaultFeedbackDecayRate,
		"feedback.stale_days":                    DefaultFeedbackStaleDays,
		"feedback.decay_interval_sessions":       DefaultFeedbackDecayIntervalSessions,
		"feedback.rank_weight":                   DefaultFeedbackRankWeight,
		"connectors.poll_interval":               DefaultConnectorsPollInterval,
		"connectors.max_file_bytes":              DefaultConnectorsMaxFileBytes,
		"connectors.max_files":                   DefaultConnectorsMaxFiles,
		"reranker.provider":                      DefaultRerankerProvider,
		"reranker.top_n":                         DefaultRerankerTopN,
		"reranker.timeout":                       DefaultRerankerTimeout,
		"graph.boost_timeout":                    DefaultGraphBoostTimeout,

		"hints.max":     DefaultHintsMax,
		"hints.llm":     DefaultHintsLLM,
		"hints.timeout": DefaultHintsTimeout,

		"pipeline.enabled":     DefaultPipelineEnabled,
		"pipeline.shadow_mode": DefaultPipelineShadowMode,

		"hooks.max_inject_chars":         DefaultHooksMaxInjectChars,
		"hooks.session_start_chars":      DefaultHooksSessionStartChars,
		"hooks.user_chars":               DefaultHooksUserChars,
		"hooks.agent_chars":              DefaultHooksAgentChars,
		"hooks.prompt_scope_memories":    DefaultHooksPromptScopeMemories,
		"hooks.session_start_candidates": DefaultHooksSessionStartCandidates,
		"hooks.prompt_min_score":         DefaultHooksPromptMinScore,
		"hooks.prompt_min_coverage":      DefaultHooksPromptMinCoverage,
		"hooks.prompt_unknown_weight":    DefaultHooksPromptUnknownWeight,
		"hooks.prompt_min_similarity":    DefaultHooksPromptMinSimilarity,
		"hooks.prompt_chars":             DefaultHooksPromptChars,
		"hooks.prompt_max_memories":      DefaultHooksPromptMaxMemories,
		"hooks.dedup_prompts":            DefaultHooksDedupPrompts,
		"hooks.store_instructions":       DefaultHooksStoreInstructions,
		"pipeline_v2.daily_token_budget": DefaultPipelineV2DailyTokenBudget,
		"hooks.transcript_max_chars":     DefaultHooksTranscriptMaxChars,
		"hooks.max_body_bytes":           DefaultHooksMaxBodyBytes,
		"hooks.autostart":                DefaultHooksAutostart,
		"hooks.autostart_idle_exit":      DefaultHooksAutostartIdleExit,

		"pipeline_v2.min_fact_confidence_for_write":         DefaultPipelineV2MinFactConfidenceForWrite,
		"pipeline_v2.provider":                              DefaultPipelineV2Provider,
		"pipeline_v2.timeout":                               DefaultPipelineV2Timeout,
		"pipeline_v2.concurrency":                           DefaultPipelineV2Concurrency,
		"pipeline_v2.poll_interval":                         DefaultPipelineV2PollInterval,
		"pipeline_v2.lease_timeout":                         DefaultPipelineV2LeaseTimeout,
		"pipeline_v2.max_attempts":                          DefaultPipelineV2MaxAttempts,
		"pipeline_v2.semantic_contradiction":                DefaultPipelineV2SemanticContradiction,
		"pipeline_v2.semantic_contradiction_timeout":        DefaultPipelineV2SemanticContradictionTimeout,
		"pipeline_v2.semantic_contradiction_min_confidence": DefaultPipelineV2SemanticContradictionMinConfidence,

		"log.level": DefaultLogLevel,

		"documents.worker_interval":   DefaultDocumentsWorkerInterval,
		"documents.chunk_size":        DefaultDocumentsChunkSize,
		"documents.chunk_overlap":     DefaultDocumentsChunkOverlap,
		"documents.max_content_bytes": DefaultDocumentsMaxContentBytes,
		"documents.fetch_timeout":     DefaultDocumentsFetchTimeout,
		"documents.max_redirects":     DefaultDocumentsMaxRedirects,
		"documents.concurrency":       DefaultDocumentsConcurrency,

		"retention.enabled":                DefaultRetentionEnabled,
		"retention.prune_min_age":          DefaultRetentionPruneMinAge,
		"retention.max_memories_user":      DefaultRetentionMaxMemoriesUser,
		"retention.max_memories_per_agent": DefaultRetentionMaxMemoriesPerAgent,
		"retention.interval":               DefaultRetentionInterval,
		"retention.tombstone_window":       DefaultRetentionTombstoneWindow,
		"retention.history_window":         DefaultRetentionHistoryWindow,
		"retention.completed_jobs_window":  DefaultRetentionCompletedJobsWindow,
		"retention.dead_jobs_window":       DefaultRetentionDeadJobsWindow,
		"retention.batch_size":             DefaultRetentionBatchSize,
		"retention.max_batches":            DefaultRetentionMaxBatches,

		"maintenance.mode":                    DefaultMaintenanceMode,
		"maintenance.interval":                DefaultMaintenanceInterval,
		"maintenance.requeue_cooldown":        DefaultMaintenanceRequeueCooldown,
		"maintenance.requeue_hourly_budget":   DefaultMaintenanceRequeueHourlyBudget,
		"maintenance.reembed_cooldown":        DefaultMaintenanceReembedCooldown,
		"maintenance.reembed_hourly_budget":   DefaultMaintenanceReembedHourlyBudget,
		"maintenance.fts_cooldown":            DefaultMaintenanceFTSCooldown,
		"maintenance.fts_hourly_budget":       DefaultMaintenanceFTSHourlyBudget,
		"maintenance.dedup_cooldown":          DefaultMaintenanceDedupCooldown,
		"maintenance.dedup_hourly_budget":     DefaultMaintenanceDedupHourlyBudget,
		"maintenance.retention_cooldown":      DefaultMaintenanceRetentionCooldown,
		"maintenance.retention_hourly_budget": DefaultMaintenanceRetentionHourlyBudget,
	}

	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("DefaultConfig does not validate: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range cfg.fields() {
		got := normalized(f.value)
		w, ok := want[f.key]
		if !ok {
			if !f.value.IsZero() {
				t.Errorf("%s = %v by default but has no Default* constant in this table", f.key, got)
			}
			continue
		}
		seen[f.key] = true
		if _, isDur := w.(time.Duration); isDur != (f.value.Type() == durationType) {
			t.Errorf("%s: constant %T for a field of type %s (durations need a time.Duration constant)", f.key, w, f.value.Type())
			continue
		}
		if wv := normalized(reflect.ValueOf(w)); got != wv {
			t.Errorf("%s = %v, want the constant's %v", f.key, got, wv)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("table key %s is not a configuration key", k)
		}
	}
}

// normalized turns a field or constant into a value == can compare:
// durations as time.Duration, integers as int64.
func normalized(v reflect.Value) any {
	switch {
	case v.Type() == durationType || v.Type() == reflect.TypeOf(time.Duration(0)):
		return time.Duration(v.Int())
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		return v.Int()
	}
	return v.Interface()
}
