package config

import "time"

// The defaults of every key, one constant each, grouped by section.
// DefaultConfig and the section default functions are built from them, and
// code that must fill in a key left at zero (a worker built by hand, a
// Service given an unvalidated Config) uses the same constant. Keys not
// listed default to their zero value: off, empty or 0.

// Server defaults.
const (
	// DefaultAddr is where the API listens: loopback only, since the
	// default auth.mode (local) has no authentication.
	DefaultAddr = "127.0.0.1:3850"
	// DefaultServerMaxBodyBytes bounds an API request body (1 MiB).
	DefaultServerMaxBodyBytes = 1 << 20
	// DefaultServerShutdownTimeout is how long a stopping server waits for
	// requests in flight.
	DefaultServerShutdownTimeout = 10 * time.Second
	// DefaultServerReadTimeout bounds reading a whole request: the largest
	// body (an import, 64 MiB) arrives in well under a second on loopback
	// and in a minute at 1 MiB/s; a trickled body is cut here.
	DefaultServerReadTimeout = time.Minute
	// DefaultServerWriteTimeout bounds a request from its headers to its
	// answer: above the longest handler (session-end finishes within a
	// minute, a recall waits on the embedding provider's 30 s).
	DefaultServerWriteTimeout = 5 * time.Minute
	// DefaultServerIdleTimeout closes idle kept-alive connections.
	DefaultServerIdleTimeout = 2 * time.Minute
	// DefaultServerMaxConcurrent (0) admits two API reads per CPU at once,
	// of which one per CPU runs while the others wait for it: recall is CPU
	// work, and more at once only makes each slower (and leaves the Go
	// scheduler no P free for new requests: see core/httpapi/admission.go).
	DefaultServerMaxConcurrent = 0
	// DefaultServerQueueTimeout is how long a request waits for a turn
	// before a 503: a caller learns at once that cairn is busy instead of
	// waiting seconds in a queue.
	DefaultServerQueueTimeout = 50 * time.Millisecond
	// server.allowed_origins and server.allowed_hosts are empty by
	// default: loopback origins and hosts (localhost, 127.0.0.1, [::1])
	// and the host of server.addr are always accepted.
)

// Input limits: fixed bounds on what one request may carry, not
// configuration keys. They keep every filter a bounded SQL expression and
// every stored field a readable size.
const (
	// MaxTags is the most tags a memory or a tag filter may have.
	MaxTags = 32
	// MaxTagChars is the longest tag, in characters.
	MaxTagChars = 64
)

// Storage defaults.
const (
	// DefaultStorageSynchronous is SQLite's synchronous pragma (the
	// database runs in WAL mode).
	DefaultStorageSynchronous = "normal"
	// DefaultStorageBusyTimeout is how long a connection waits for a lock.
	DefaultStorageBusyTimeout = 5 * time.Second
	// DefaultStorageReadConns is the size of the read connection pool:
	// more than the requests served at once (server.max_concurrent), so a
	// request does not wait for a connection while background readers
	// (health snapshots, the workers) hold some.
	DefaultStorageReadConns = 16
)

// Auth defaults.
const (
	// DefaultAuthMode is local: no tokens, loopback only.
	DefaultAuthMode = "local"
	// DefaultAuthTokenTTL is a token's lifetime when none is asked for
	// (7 days).
	DefaultAuthTokenTTL = 7 * 24 * time.Hour
	// DefaultAuthRateWindow is the fixed window of the rate limits.
	DefaultAuthRateWindow = time.Minute
	// DefaultAuthRateForget is the forget requests allowed per actor and
	// window.
	DefaultAuthRateForget = 30
	// DefaultAuthRateModify is the modify requests allowed per actor and
	// window.
	DefaultAuthRateModify = 60
	// DefaultAuthRateBatchForget is the batch forget requests allowed per
	// actor and window.
	DefaultAuthRateBatchForget = 5
	// DefaultAuthRateAdmin is the admin requests allowed per actor and
	// window.
	DefaultAuthRateAdmin = 10
	// DefaultAuthRateDocuments is the documents a caller may create per
	// window, in every auth mode.
	DefaultAuthRateDocuments = 30
)

// Memory defaults.
const (
	// DefaultMemoryImportance is the importance of a memory stored without
	// one (memory.default_importance).
	DefaultMemoryImportance = 0.8
	// DefaultMemoryRecoverWindow is how long a forgotten memory can be
	// recovered (30 days).
	DefaultMemoryRecoverWindow = 30 * 24 * time.Hour
	// DefaultMemoryForgetConfirmThreshold: a batch forget of more
	// memories than this needs confirmation.
	DefaultMemoryForgetConfirmThreshold = 25
	// DefaultMemoryMaxBatch is the most memories one batch call touches.
	DefaultMemoryMaxBatch = 200
	// DefaultMemorySupersedeAttributes: statements the linker reads
	// supersede the values they replace.
	DefaultMemorySupersedeAttributes = true
	// DefaultMemoryEvidenceWeight: a memory's score is multiplied by its
	// evidence to this power (from 0.39 for a year-old inferred memory to
	// 1.22 for one stated five times or more; a fresh stated one, 1). The
	// developer's month, plain sentences, supersession off: current value
	// first for 3 of 12 at 0, 4 at 0.25, 5 at 0.5, 9 at 1. At 1 a year-old
	// stated fact that still holds would weigh 0.3: too much for a store
	// of decisions that stay true.
	DefaultMemoryEvidenceWeight = 0.5
)

// Guardrails defaults, in characters.
const (
	// DefaultGuardrailsMaxContentChars: longer content is split into chunks.
	DefaultGuardrailsMaxContentChars = 500
	// DefaultGuardrailsChunkTargetChars is the size aimed at when splitting.
	DefaultGuardrailsChunkTargetChars = 300
	// DefaultGuardrailsMaxRememberChars: longer content is refused (64 KiB
	// of characters).
	DefaultGuardrailsMaxRememberChars = 65536
	// DefaultGuardrailsRecallTruncateChars: longer recalled content is cut.
	DefaultGuardrailsRecallTruncateChars = 500
)

// Embedding defaults.
const (
	// DefaultEmbeddingProvider is the offline model compiled into cairn.
	DefaultEmbeddingProvider = "builtin"
	// DefaultEmbeddingTimeout bounds one call to the provider.
	DefaultEmbeddingTimeout = 30 * time.Second
	// DefaultEmbeddingBatchSize is how many texts go to the provider in
	// one call.
	DefaultEmbeddingBatchSize = 16
	// DefaultEmbeddingTrackerInterval is how often the embedding tracker
	// looks for memories without a vector.
	DefaultEmbeddingTrackerInterval = 5 * time.Second
	// DefaultEmbeddingTrackerBatch is how many memories one tracker pass
	// embeds.
	DefaultEmbeddingTrackerBatch = 64
)

// Search defaults.
const (
	// DefaultSearchAlpha weighs the vector leg against the keyword leg.
	// Measured with cairn bench locomo once memories were indexed with
	// their session context (R@10/MRR, coverage weight 0.5): 0.7
	// 71.2/52.0 (at coverage 0.7), 0.5 71.8/53.9, 0.4 72.8/54.6, 0.3
	// 72.3/54.3.
	DefaultSearchAlpha = 0.4
	// DefaultSearchMinScore drops weaker fused results.
	DefaultSearchMinScore = 0.1
	// DefaultSearchTopK is how many candidates each leg contributes.
	DefaultSearchTopK = 50
	// DefaultSearchDecayRate is the per-day importance decay.
	DefaultSearchDecayRate = 0.95
	// DefaultSearchFusion combines the legs by weighted blend.
	DefaultSearchFusion = "blend"
	// DefaultSearchMinVectorSimilarity (-1) uses the floor measured for
	// the embedding model.
	DefaultSearchMinVectorSimilarity = -1.0
	// DefaultSearchCoverageWeight blends query word coverage with BM25.
	// At alpha 0.4: 0.1 71.8/53.0, 0.3 72.5/54.0, 0.5 72.8/54.6, 0.6
	// 72.2/54.5, 0.7 72.3/54.4, 0.85 70.9/53.8.
	DefaultSearchCoverageWeight = 0.5
	// DefaultSearchSpeakerWeight demotes the turns of speakers a question
	// does not name when it names another. LoCoMo R@10/MRR: 0 72.8/54.6,
	// 0.15 74.6/57.1, 0.3 75.1/58.1, 0.5 74.9/57.9.
	DefaultSearchSpeakerWeight = 0.3
	// DefaultSearchSpeakerMargin: a turn of a speaker the question does
	// not name is demoted only when a turn of the named speaker holds at
	// least its share of the question's other words less this margin (1:
	// always).
	DefaultSearchSpeakerMargin = 1.0
	// DefaultSearchCoverageIDF weighs coverage's words by their IDF.
	DefaultSearchCoverageIDF = false
	// DefaultSearchNeighborWeight pulls a memory toward the score of its
	// neighbour in its session when that is higher (0: off). LoCoMo
	// leave-one-conversation-out (`cairn bench locomo --loco`): tuned on
	// four conversations it chose 0.2 every time and beat 0 on the fifth
	// in 4 of 5 folds on R@10 (codes 1-4, one tie), 5 of 5 on all codes
	// and on the adversarial questions.
	DefaultSearchNeighborWeight = 0.2
	// DefaultSearchDampening turns the post-fusion corrections (gravity,
	// hub dampening, the lift of decisions, constraints and dated memories)
	// on. They carry what the benchmarks cannot see (LoCoMo has no
	// decisions or constraints); held out on LoCoMo they win no fold of
	// five and lose one by under a point (the README's "Measuring cairn").
	DefaultSearchDampening = true
	// DefaultSearchKeywordIndex serves the keyword leg from the in-memory
	// index.
	DefaultSearchKeywordIndex = true
	// DefaultSearchSessionContext indexes each memory stated in a session
	// with its predecessor there (LoCoMo keyword recall@10 60.5 -> 68.5).
	DefaultSearchSessionContext = true
)

// Learned ranker (predictor) defaults (docs/design/pipeline.md, "Learned
// ranker").
const (
	// DefaultPredictorEnabled: off until it beats the baseline.
	DefaultPredictorEnabled = false
	// DefaultPredictorMinSessions scored sessions before a first model.
	DefaultPredictorMinSessions = 20
	// DefaultPredictorRetrainEvery newly scored sessions between trainings.
	DefaultPredictorRetrainEvery = 5
	// DefaultPredictorInterval between the worker's looks.
	DefaultPredictorInterval = 5 * time.Minute
	// DefaultPredictorDriftMargin of moving NDCG@10 below the baseline.
	DefaultPredictorDriftMargin = 0.02
)

// Aspect feedback defaults, as Signet's (docs/design/pipeline.md,
// "Aspect feedback").
const (
	// DefaultFeedbackEnabled keeps aspect weights.
	DefaultFeedbackEnabled = true
	// DefaultFeedbackWeightDelta is added per confirmed memory.
	DefaultFeedbackWeightDelta = 0.02
	// DefaultFeedbackMinWeight is the floor of a weight.
	DefaultFeedbackMinWeight = 0.1
	// DefaultFeedbackMaxWeight is the ceiling of a weight.
	DefaultFeedbackMaxWeight = 1.0
	// DefaultFeedbackDecayEnabled decays unconfirmed aspects.
	DefaultFeedbackDecayEnabled = true
	// DefaultFeedbackDecayRate is taken off a stale aspect per decay.
	DefaultFeedbackDecayRate = 0.005
	// DefaultFeedbackStaleDays without a confirmation make an aspect stale.
	DefaultFeedbackStaleDays = 14
	// DefaultFeedbackDecayIntervalSessions scored sessions between decays.
	DefaultFeedbackDecayIntervalSessions = 10
	// DefaultFeedbackRankWeight leaves the hooks' ranking alone: the replay
	// benchmark shows no gain from it (its conversations hold no aspect).
	DefaultFeedbackRankWeight = 0.0
)

// Continuity defaults (docs/design/pipeline.md, "Session continuity").
const (
	// DefaultContinuityEnabled records checkpoints and recovers sessions.
	DefaultContinuityEnabled = true
	// DefaultContinuityPromptInterval is prompts between checkpoints.
	DefaultContinuityPromptInterval = 10
	// DefaultContinuityTimeInterval is 15 minutes between checkpoints.
	DefaultContinuityTimeInterval = 15 * time.Minute
	// DefaultContinuityMaxCheckpoints is the per-session cap.
	DefaultContinuityMaxCheckpoints = 50
	// DefaultContinuityRetention keeps checkpoints 7 days.
	DefaultContinuityRetention = 7 * 24 * time.Hour
	// DefaultContinuityRecoveryBudgetChars bounds the recovery digest.
	DefaultContinuityRecoveryBudgetChars = 2000
	// DefaultContinuityUseSignal weighs the words a later text shares with
	// a memory (on LoCoMo, 8.7% of what the share rule called used were
	// questions' evidence, 25% of all turns are; README).
	DefaultContinuityUseSignal = "weight"
	// DefaultContinuityUseMinWeight is about two rare words in common.
	DefaultContinuityUseMinWeight = 12.0
)

// Connectors defaults.
const (
	// DefaultConnectorsPollInterval is how often folders are checked.
	DefaultConnectorsPollInterval = 30 * time.Second
	// DefaultConnectorsMaxFileBytes skips files over 1 MiB.
	DefaultConnectorsMaxFileBytes = 1 << 20
	// DefaultConnectorsMaxFiles bounds one connector's files.
	DefaultConnectorsMaxFiles = 20000
)

// Reranker defaults (docs/design/search.md, "Reranking").
const (
	// DefaultRerankerEnabled leaves the model reranker off.
	DefaultRerankerEnabled = false
	// DefaultRerankerProvider is a /rerank endpoint.
	DefaultRerankerProvider = "http"
	// DefaultRerankerTopN is how many candidates are reranked.
	DefaultRerankerTopN = 20
	// DefaultRerankerTimeout bounds one reranking.
	DefaultRerankerTimeout = 2 * time.Second
)

// Graph defaults.
const (
	// DefaultGraphEnabled writes the knowledge graph and uses it in recall.
	DefaultGraphEnabled = true
	// DefaultGraphBoostWeight is the largest graph boost of a recall
	// candidate (0: off). Off: held out on LoCoMo (`cairn bench locomo
	// --loco`) the boost of 0.1 won two folds of five, short of the four a
	// tuned value needs, and `cairn bench sessions` answers the same
	// questions with it on or off; the lookups cost recall time.
	DefaultGraphBoostWeight = 0.0
	// DefaultGraphBoostTimeout bounds the boost's lookups on the recall
	// path.
	DefaultGraphBoostTimeout = 50 * time.Millisecond
)

// Hints defaults (hints are off by default).
const (
	// DefaultHintsMax is how many hypothetical questions a memory gets.
	DefaultHintsMax = 5
	// DefaultHintsLLM lets a model write the questions when one is
	// configured.
	DefaultHintsLLM = true
	// DefaultHintsTimeout bounds one generation (Signet's 45 s).
	DefaultHintsTimeout = 45 * time.Second
)

// Pipeline mode defaults: the pipeline runs and writes what it learns
// (controlled writes: additions are live at once, for review afterwards;
// updates and deletes of existing memories wait for review unless
// pipeline_v2.allow_update_delete). Shadow mode, which only proposes, is
// a setting.
const (
	// DefaultPipelineEnabled starts the extraction pipeline.
	DefaultPipelineEnabled = true
	// DefaultPipelineShadowMode: false, what a session teaches becomes
	// live memory (a memory system that learns nothing until someone
	// reviews its proposals learns nothing).
	DefaultPipelineShadowMode = false
)

// Pipeline worker (pipeline_v2) defaults.
const (
	// DefaultPipelineV2MinFactConfidenceForWrite: facts below it are not
	// written in controlled-write mode. It is compared with the fact's
	// confidence capped by how it was got: observed in a session
	// 0.7 (written), inferred from a stated memory 0.5 (held for review,
	// the memory itself being live), hedged facts 0.45 (held).
	DefaultPipelineV2MinFactConfidenceForWrite = 0.7
	// DefaultPipelineV2Provider: auto, the built-in heuristic unless the
	// user chose a model (a model in the background is the user's choice).
	DefaultPipelineV2Provider = "auto"
	// DefaultPipelineV2DailyTokenBudget: about 40 session transcripts a
	// day read by a small model (a transcript window and its decisions
	// cost some 7,000 tokens).
	DefaultPipelineV2DailyTokenBudget = 300_000
	// DefaultPipelineV2Timeout bounds one model call.
	DefaultPipelineV2Timeout = 90 * time.Second
	// DefaultPipelineV2Concurrency is how many jobs run at once.
	DefaultPipelineV2Concurrency = 1
	// DefaultPipelineV2PollInterval is how often an idle worker looks for
	// jobs.
	DefaultPipelineV2PollInterval = 2 * time.Second
	// DefaultPipelineV2LeaseTimeout: a job leased longer is returned to the
	// queue.
	DefaultPipelineV2LeaseTimeout = 5 * time.Minute
	// DefaultPipelineV2MaxAttempts is the attempts before a job is dead.
	DefaultPipelineV2MaxAttempts = 3
	// DefaultPipelineV2SemanticContradiction turns the model's
	// contradiction check on.
	DefaultPipelineV2SemanticContradiction = true
	// DefaultPipelineV2SemanticContradictionTimeout bounds one check.
	DefaultPipelineV2SemanticContradictionTimeout = 15 * time.Second
	// DefaultPipelineV2SemanticContradictionMinConfidence: weaker verdicts
	// are ignored.
	DefaultPipelineV2SemanticContradictionMinConfidence = 0.7
)

// Hooks defaults, in characters unless named otherwise.
const (
	// DefaultHooksMaxInjectChars caps any inject, under Claude Code's
	// 10,000-character cut of additionalContext.
	DefaultHooksMaxInjectChars = 9000
	// DefaultHooksSessionStartChars is the session-start list's budget.
	DefaultHooksSessionStartChars = 2000
	// DefaultHooksSessionStartCandidates is how many of the newest
	// memories session start considers.
	DefaultHooksSessionStartCandidates = 150
	// DefaultHooksPromptMinScore gates prompt recall.
	DefaultHooksPromptMinScore = 0.3
	// DefaultHooksPromptMinCoverage is the rarity-weighted share of a
	// prompt's words a memory must hold to be injected. 0.44 since words
	// match as the index stems them ("styled" holds "Styling"): that kept
	// LoCoMo's false injections at 7.9% (8.2% before, at 0.4 with the
	// older matching) and its evidence at 61.1% (60.8%).
	DefaultHooksPromptMinCoverage = 0.44
	// DefaultHooksPromptUnknownWeight weighs a prompt word no memory
	// holds. Measured with cairn bench inject (evidence / false
	// injections): 0 57.6% / 11.8%, 0.3 57.3 / 10.0, 0.6 57.0 / 8.1,
	// 1.0 56.2 / 7.0.
	DefaultHooksPromptUnknownWeight = 0.6
	// DefaultHooksPromptMinSimilarity (-1) uses the model's measured floor.
	DefaultHooksPromptMinSimilarity = -1.0
	// DefaultHooksUserChars is the session-start budget of the user scope.
	DefaultHooksUserChars = 600
	// DefaultHooksAgentChars is the session-start budget of the agent scope.
	DefaultHooksAgentChars = 400
	// DefaultHooksPromptScopeMemories is the most user and agent memories
	// a prompt adds.
	DefaultHooksPromptScopeMemories = 2
	// DefaultHooksPromptChars is each prompt inject's budget.
	DefaultHooksPromptChars = 1000
	// DefaultHooksPromptMaxMemories is the most memories one prompt
	// inject holds.
	DefaultHooksPromptMaxMemories = 3
	// DefaultHooksDedupPrompts: a memory injected in the last this many
	// prompts is not injected again.
	DefaultHooksDedupPrompts = 5
	// DefaultHooksStoreInstructions: session start says when to store a
	// memory (the agent's own model extracts, at no extra cost).
	DefaultHooksStoreInstructions = true
	// DefaultHooksTranscriptMaxChars caps a stored transcript.
	DefaultHooksTranscriptMaxChars = 2_000_000
	// DefaultHooksMaxBodyBytes bounds a hook request body (16 MiB; inline
	// transcripts are large).
	DefaultHooksMaxBodyBytes = 16 << 20
	// DefaultHooksAutostart: a hook that finds no running cairn starts
	// one in the background.
	DefaultHooksAutostart = true
	// DefaultHooksAutostartIdleExit is how long a server started by a hook
	// waits for a request before it exits.
	DefaultHooksAutostartIdleExit = 15 * time.Minute
)

// Project identity defaults (core/project). The [projects.NAME] tables
// are empty by default: a project is its repository root, named by the
// root's base name.
const (
	// DefaultProjectMarker is the entry whose presence makes a folder a
	// repository root (a folder, or a file in worktrees and submodules).
	DefaultProjectMarker = ".git"
	// MaxProjectChars is the longest project identity, in bytes (a path
	// of PATH_MAX).
	MaxProjectChars = 4096
)

// Log defaults.
const (
	// DefaultLogLevel is the least severe level logged.
	DefaultLogLevel = "info"
)

// Documents defaults.
const (
	// DefaultDocumentsWorkerInterval is how often an idle document worker
	// looks for jobs.
	DefaultDocumentsWorkerInterval = 10 * time.Second
	// DefaultDocumentsChunkSize is a document window, in characters.
	DefaultDocumentsChunkSize = 2000
	// DefaultDocumentsChunkOverlap is the overlap of two windows, in
	// characters.
	DefaultDocumentsChunkOverlap = 200
	// DefaultDocumentsMaxContentBytes bounds a fetched page or a text
	// document (10 MiB).
	DefaultDocumentsMaxContentBytes = 10 << 20
	// DefaultDocumentsMaxChunks bounds the chunks of one document (1,000
	// chunks of 2,000 characters: about 1.5 million characters, some 12 s
	// of the built-in embedder's CPU).
	DefaultDocumentsMaxChunks = 1000
	// DefaultDocumentsFetchTimeout bounds one URL fetch.
	DefaultDocumentsFetchTimeout = 30 * time.Second
	// DefaultDocumentsMaxRedirects is the most redirects a fetch follows.
	DefaultDocumentsMaxRedirects = 5
	// DefaultDocumentsConcurrency is how many documents are ingested at
	// once.
	DefaultDocumentsConcurrency = 1
)

// Retention defaults.
const (
	// DefaultRetentionEnabled starts the retention worker.
	DefaultRetentionEnabled = true
	// DefaultRetentionInterval is the time between two sweeps.
	DefaultRetentionInterval = 6 * time.Hour
	// DefaultRetentionTombstoneWindow keeps forgotten memories as long as
	// they can be recovered (memory.recover_window, 30 days).
	DefaultRetentionTombstoneWindow = DefaultMemoryRecoverWindow
	// DefaultRetentionPruneMinAge protects memories created or used in
	// the last 30 days from the per-project bound.
	DefaultRetentionPruneMinAge = 30 * 24 * time.Hour
	// DefaultRetentionMaxMemoriesUser and DefaultRetentionMaxMemoriesPerAgent:
	// the user and agent scopes are unbounded until configured.
	DefaultRetentionMaxMemoriesUser     = 0
	DefaultRetentionMaxMemoriesPerAgent = 0
	// DefaultRetentionHistoryWindow keeps history events 180 days.
	DefaultRetentionHistoryWindow = 180 * 24 * time.Hour
	// DefaultRetentionCompletedJobsWindow keeps completed jobs 14 days.
	DefaultRetentionCompletedJobsWindow = 14 * 24 * time.Hour
	// DefaultRetentionDeadJobsWindow keeps dead jobs 30 days.
	DefaultRetentionDeadJobsWindow = 30 * 24 * time.Hour
	// DefaultRetentionBatchSize is the most rows one write transaction
	// removes.
	DefaultRetentionBatchSize = 500
	// DefaultRetentionMaxBatches caps the batches of each step in a sweep.
	DefaultRetentionMaxBatches = 200
)

// Maintenance defaults: autonomy is off (opt-in) and, once on, the worker
// only observes.
const (
	// DefaultMaintenanceMode logs recommendations without running them.
	DefaultMaintenanceMode = "observe"
	// DefaultMaintenanceInterval is the time between two passes.
	DefaultMaintenanceInterval = 30 * time.Minute
	// DefaultMaintenanceRequeueCooldown and the other cooldowns are the
	// least time between two agent runs of one action group.
	DefaultMaintenanceRequeueCooldown = time.Minute
	// DefaultMaintenanceRequeueHourlyBudget and the other budgets are the
	// agent runs of one action group allowed per hour.
	DefaultMaintenanceRequeueHourlyBudget = 50
	// DefaultMaintenanceReembedCooldown is the reembed group's cooldown.
	DefaultMaintenanceReembedCooldown = 5 * time.Minute
	// DefaultMaintenanceReembedHourlyBudget is the reembed group's budget.
	DefaultMaintenanceReembedHourlyBudget = 10
	// DefaultMaintenanceFTSCooldown is the fts group's cooldown.
	DefaultMaintenanceFTSCooldown = 5 * time.Minute
	// DefaultMaintenanceFTSHourlyBudget is the fts group's budget.
	DefaultMaintenanceFTSHourlyBudget = 5
	// DefaultMaintenanceDedupCooldown is the dedup group's cooldown.
	DefaultMaintenanceDedupCooldown = 10 * time.Minute
	// DefaultMaintenanceDedupHourlyBudget is the dedup group's budget.
	DefaultMaintenanceDedupHourlyBudget = 3
	// DefaultMaintenanceRetentionCooldown is the retention group's cooldown.
	DefaultMaintenanceRetentionCooldown = 10 * time.Minute
	// DefaultMaintenanceRetentionHourlyBudget is the retention group's
	// budget.
	DefaultMaintenanceRetentionHourlyBudget = 3
)
