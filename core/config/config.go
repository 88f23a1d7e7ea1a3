package config

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is cairn's whole configuration. Every key has a default (see
// [DefaultConfig]); a file, the environment (CAIRN_<SECTION>_<KEY>) and
// command-line flags override it in that order. Field tags give each key's
// TOML name and its allowed values: range:"min,max" or oneof:"a,b"; a
// special:"VALUE=WORD: meaning" tag names a value that means something
// other than its number (-1 for "auto"), which the file, the environment
// and `cairn config` spell as the word.
type Config struct {
	Server     ServerConfig     `toml:"server"`
	Storage    StorageConfig    `toml:"storage"`
	Auth       AuthConfig       `toml:"auth"`
	Memory     MemoryConfig     `toml:"memory"`
	Guardrails GuardrailsConfig `toml:"guardrails"`
	Embedding  EmbeddingConfig  `toml:"embedding"`
	Search     SearchConfig     `toml:"search"`
	Graph      GraphConfig      `toml:"graph"`
	Reranker   RerankerConfig   `toml:"reranker"`
	Connectors ConnectorsConfig `toml:"connectors"`
	Continuity ContinuityConfig `toml:"continuity"`
	Predictor  PredictorConfig  `toml:"predictor"`
	Feedback   FeedbackConfig   `toml:"feedback"`
	Hints      HintsConfig      `toml:"hints"`
	Pipeline   PipelineConfig   `toml:"pipeline"`
	Hooks      HooksConfig      `toml:"hooks"`
	PipelineV2 PipelineV2Config `toml:"pipeline_v2"`
	TUI        TUIConfig        `toml:"tui"`
	Log        LogConfig        `toml:"log"`
	Documents  DocumentsConfig  `toml:"documents"`
	// Retention purges old tombstones, history and jobs (core/retention.go).
	Retention RetentionConfig `toml:"retention"`
	// Maintenance is the policy gate of repairs (core/repair_gate.go).
	Maintenance MaintenanceConfig `toml:"maintenance"`
	// Projects names projects and gives them aliases (projects.go): each
	// [projects.NAME] table has a root folder and optional aliases.
	Projects map[string]ProjectConfig `toml:"projects"`
}

// RetentionConfig configures the retention sweep: what is purged and when.
// Windows are measured from stored timestamps (deleted_at, created_at,
// updated_at) against the service clock.
type RetentionConfig struct {
	// Enabled starts the retention worker with the server and the TUI; the
	// retention-sweep repair works either way.
	Enabled  bool     `toml:"enabled"`
	Interval Duration `toml:"interval" range:"1m,720h"`
	// TombstoneWindow: soft-deleted memories older than this are purged
	// for good (graph links, vectors, the row and its full-text entry). It
	// may not be shorter than memory.recover_window.
	TombstoneWindow Duration `toml:"tombstone_window" range:"1h,87600h"`
	// HistoryWindow: history events older than this are deleted.
	HistoryWindow Duration `toml:"history_window" range:"1h,87600h"`
	// CompletedJobsWindow and DeadJobsWindow: finished jobs whose last
	// change is older than this are deleted.
	CompletedJobsWindow Duration `toml:"completed_jobs_window" range:"1h,87600h"`
	DeadJobsWindow      Duration `toml:"dead_jobs_window" range:"1h,87600h"`
	// BatchSize is the most rows one write transaction removes.
	BatchSize int `toml:"batch_size" range:"1,100000"`
	// MaxBatches caps the batches of each step in one sweep; what is left
	// waits for the next sweep.
	MaxBatches int `toml:"max_batches" range:"1,1000000"`
	// MaxMemoriesPerProject bounds each project's live memories (memories
	// of no project count as one project); 0 is no bound. Over it, the
	// sweep forgets the oldest unused ones (docs/design/evolution.md,
	// "Pruning"): never pinned ones, decisions and rules, keyed facts,
	// memories younger than PruneMinAge or used within PruneMinAge.
	MaxMemoriesPerProject int `toml:"max_memories_per_project" range:"0,10000000" special:"0=off: no bound"`
	// MaxMemoriesUser and MaxMemoriesPerAgent bound the user scope and
	// each agent's scope the same way (memories of those scopes are not
	// counted in any project); 0 is no bound.
	MaxMemoriesUser     int `toml:"max_memories_user" range:"0,10000000" special:"0=off: no bound"`
	MaxMemoriesPerAgent int `toml:"max_memories_per_agent" range:"0,10000000" special:"0=off: no bound"`
	// PruneMinAge protects memories created or used within it.
	PruneMinAge Duration `toml:"prune_min_age" range:"24h,87600h"`
}

// MaintenanceConfig is the policy gate of repairs. Operators (and sdk
// callers) are never throttled; agent callers (agent, harness) need
// autonomous_enabled and go through per-action cooldowns and hourly
// budgets; daemon callers (daemon, pipeline: the maintenance worker) need
// autonomous_enabled but are not throttled. autonomous_frozen denies every
// agent and daemon run; operators may still repair.
type MaintenanceConfig struct {
	AutonomousEnabled bool `toml:"autonomous_enabled"`
	AutonomousFrozen  bool `toml:"autonomous_frozen"`
	// Mode of the maintenance worker: observe only logs recommendations,
	// execute runs them.
	Mode     string   `toml:"mode" oneof:"observe,execute"`
	Interval Duration `toml:"interval" range:"1m,24h"`
	// Cooldowns and hourly budgets for agent callers, per action group:
	// requeue (requeue-dead, release-leases, clean-orphans), reembed,
	// fts (check-fts), dedup, retention (retention-sweep).
	RequeueCooldown       Duration `toml:"requeue_cooldown" range:"0s,24h"`
	RequeueHourlyBudget   int      `toml:"requeue_hourly_budget" range:"1,100000"`
	ReembedCooldown       Duration `toml:"reembed_cooldown" range:"0s,24h"`
	ReembedHourlyBudget   int      `toml:"reembed_hourly_budget" range:"1,100000"`
	FTSCooldown           Duration `toml:"fts_cooldown" range:"0s,24h"`
	FTSHourlyBudget       int      `toml:"fts_hourly_budget" range:"1,100000"`
	DedupCooldown         Duration `toml:"dedup_cooldown" range:"0s,24h"`
	DedupHourlyBudget     int      `toml:"dedup_hourly_budget" range:"1,100000"`
	RetentionCooldown     Duration `toml:"retention_cooldown" range:"0s,24h"`
	RetentionHourlyBudget int      `toml:"retention_hourly_budget" range:"1,100000"`
}

// DocumentsConfig configures document ingest: the worker, the chunking of
// a document into memories, and the guards of URL fetches.
type DocumentsConfig struct {
	// WorkerInterval is how often an idle document worker looks for jobs.
	WorkerInterval Duration `toml:"worker_interval" range:"10ms,5m"`
	// ChunkSize and ChunkOverlap (characters) cut a document into windows;
	// the overlap must be smaller than the size.
	ChunkSize    int `toml:"chunk_size" range:"200,50000"`
	ChunkOverlap int `toml:"chunk_overlap" range:"0,10000"`
	// MaxContentBytes bounds a fetched page (and a text document).
	MaxContentBytes int64 `toml:"max_content_bytes" range:"1024,104857600"`
	// MaxChunks bounds the chunks (memories, embeddings) of one document:
	// a longer one fails with a message saying so.
	MaxChunks    int      `toml:"max_chunks" range:"1,1000000"`
	FetchTimeout Duration `toml:"fetch_timeout" range:"1s,10m"`
	MaxRedirects int      `toml:"max_redirects" range:"0,20"`
	// AllowPrivateFetch lets URL documents reach loopback, private,
	// link-local and other non-public addresses (off: refused).
	AllowPrivateFetch bool `toml:"allow_private_fetch"`
	// Concurrency is how many documents are ingested at once.
	Concurrency int `toml:"concurrency" range:"1,8"`
}

// DefaultDocumentsConfig returns the document ingest defaults.
func DefaultDocumentsConfig() DocumentsConfig {
	return DocumentsConfig{
		WorkerInterval:  Duration(DefaultDocumentsWorkerInterval),
		ChunkSize:       DefaultDocumentsChunkSize,
		ChunkOverlap:    DefaultDocumentsChunkOverlap,
		MaxContentBytes: DefaultDocumentsMaxContentBytes,
		MaxChunks:       DefaultDocumentsMaxChunks,
		FetchTimeout:    Duration(DefaultDocumentsFetchTimeout),
		MaxRedirects:    DefaultDocumentsMaxRedirects,
		Concurrency:     DefaultDocumentsConcurrency,
	}
}

// TUIConfig configures the terminal UI.
type TUIConfig struct {
	// Theme names a built-in theme (dark, light, nord, gruvbox) or a file
	// themes/NAME.toml in the config folder; empty follows the terminal's
	// background (dark or light).
	Theme string `toml:"theme"`
}

// EmbeddingConfig selects the embedding provider. "builtin" is the offline
// model compiled into cairn; "none" turns the vector leg off.
type EmbeddingConfig struct {
	Provider string `toml:"provider" oneof:"builtin,ollama,openai,none"`
	// Model is the provider's model name; empty means the provider's default
	// (builtin: use-lite-512, ollama: nomic-embed-text, openai:
	// text-embedding-3-small).
	Model string `toml:"model"`
	// BaseURL of an ollama or OpenAI-compatible server; empty means the
	// provider's default (http://127.0.0.1:11434, https://api.openai.com/v1).
	BaseURL string `toml:"base_url"`
	// APIKey for OpenAI-compatible servers; empty reads OPENAI_API_KEY.
	APIKey string `toml:"api_key"`
	// Dimensions expected from the provider; 0 accepts what the first
	// answer has. A provider answering another length is an error.
	Dimensions int      `toml:"dimensions" range:"0,8192" special:"0=auto: what the first answer has"`
	Timeout    Duration `toml:"timeout" range:"100ms,5m"`
	// BatchSize is how many texts go to the provider in one call.
	BatchSize int `toml:"batch_size" range:"1,256"`
	// TrackerInterval is how often the background tracker looks for
	// memories without a vector (new, edited, or from another model).
	TrackerInterval Duration `toml:"tracker_interval" range:"100ms,1h"`
	// TrackerBatch is how many memories one tracker pass embeds.
	TrackerBatch int `toml:"tracker_batch" range:"1,10000"`
}

// SearchConfig tunes recall.
type SearchConfig struct {
	// Alpha weighs the vector leg against the keyword leg when fusing.
	Alpha float64 `toml:"alpha" range:"0,1"`
	// MinScore drops fused results below it.
	MinScore float64 `toml:"min_score" range:"0,1"`
	// TopK is how many candidates each leg contributes before fusion.
	TopK int `toml:"top_k" range:"1,1000"`
	// DecayRate is the per-day importance decay since last access; pinned
	// memories never decay.
	DecayRate float64 `toml:"decay_rate" range:"0.5,1"`
	// Fusion combines the legs: "blend" (alpha × vector + (1 − alpha) ×
	// keyword) or "rrf" (reciprocal rank fusion).
	Fusion string `toml:"fusion" oneof:"blend,rrf"`
	// CoverageWeight blends, in the keyword score, the share of the query's
	// words a memory contains with its BM25 (relative to the best match).
	CoverageWeight float64 `toml:"coverage_weight" range:"0,1"`
	// SpeakerWeight demotes a conversation turn ("Name: text") whose
	// speaker the query does not name, when it names the speaker of other
	// candidates: its score is multiplied by 1 − speaker_weight.
	SpeakerWeight float64 `toml:"speaker_weight" range:"0,1"`
	// CoverageIDF counts each question word in coverage at its inverse
	// document frequency (the keyword index's), not all alike.
	CoverageIDF bool `toml:"coverage_idf"`
	// SpeakerMargin keeps the speaker factor off a turn that holds more of
	// the question's other words than any turn of the named speaker by
	// more than the margin (a question that attributes a statement to the
	// wrong person is answered by the other's turn); 1 applies it always.
	SpeakerMargin float64 `toml:"speaker_margin" range:"0,1"`
	// NeighborWeight lifts a memory toward the score of the memory next to
	// it in its session (before or after) when that one scores higher:
	// score + w × (neighbour − score).
	NeighborWeight float64 `toml:"neighbor_weight" range:"0,1"`
	// Dampening turns on the post-fusion corrections: gravity (semantic
	// hits sharing no word with the query), hub and resolution
	// (docs/design/search.md, "Dampening").
	Dampening bool `toml:"dampening"`
	// MinVectorSimilarity is the relevance floor of the vector leg: a
	// memory sharing no content word with the query is a result only if
	// its cosine similarity reaches it. -1 (the default) uses the floor
	// measured for the embedding model (`cairn bench floor`), or none for a
	// model not measured.
	MinVectorSimilarity float64 `toml:"min_vector_similarity" range:"-1,1" special:"-1=auto: the floor measured for the embedding model (cairn bench floor), none for a model not measured"`
	// KeywordIndex serves the keyword leg from an in-memory index that
	// ranks as FTS5 does and stops early (about 20 bytes per memory);
	// false searches FTS5 directly.
	KeywordIndex bool `toml:"keyword_index"`
	// SessionContext indexes a memory stated in a session with the one
	// stated just before it there (half weight, keyword leg), so an answer
	// is found by the words of its question.
	SessionContext bool `toml:"session_context"`
}

// ServerConfig configures the HTTP API.
type ServerConfig struct {
	Addr            string   `toml:"addr"`
	MaxBodyBytes    int64    `toml:"max_body_bytes" range:"1024,104857600"`
	ShutdownTimeout Duration `toml:"shutdown_timeout" range:"1s,5m"`
	// ReadTimeout bounds reading one whole request, body included, so a
	// client trickling its body cannot hold a connection.
	ReadTimeout Duration `toml:"read_timeout" range:"1s,1h"`
	// WriteTimeout bounds one request from the end of its headers to the
	// end of its answer (streamed answers, like export, extend it as they
	// go).
	WriteTimeout Duration `toml:"write_timeout" range:"1s,1h"`
	// IdleTimeout closes a kept-alive connection left idle this long.
	IdleTimeout Duration `toml:"idle_timeout" range:"1s,1h"`
	// MaxConcurrent is how many API reads (recall, lists, diagnostics) are
	// served at once (0: two per CPU; writes get four times as many turns
	// of their own); others wait for a turn up to QueueTimeout, then get
	// 503 "overloaded" with Retry-After. /health is never held back.
	MaxConcurrent int `toml:"max_concurrent" range:"0,4096" special:"0=auto: two per CPU"`
	// QueueTimeout is how long a request waits for a turn.
	QueueTimeout Duration `toml:"queue_timeout" range:"1ms,1m"`
	// AllowedOrigins are the browser origins (scheme://host[:port]) trusted
	// to call the API besides loopback ones; every other Origin is refused.
	AllowedOrigins []string `toml:"allowed_origins"`
	// AllowedHosts are Host header names accepted besides localhost,
	// 127.0.0.1, [::1] and the host of addr (a name a team reaches cairn
	// by); a request for any other Host is refused.
	AllowedHosts []string `toml:"allowed_hosts"`
}

// StorageConfig configures the store: a SQLite file (the default), or
// a PostgreSQL database shared by several servers (URL).
type StorageConfig struct {
	// Path of the database; empty means the default data folder.
	Path string `toml:"path"`
	// URL of a PostgreSQL 15+ database (postgres://user@host:port/db),
	// instead of the file: the password comes from PasswordFile, or
	// PGPASSWORD or ~/.pgpass, and is never shown.
	URL          string   `toml:"url"`
	PasswordFile string   `toml:"password_file"`
	Synchronous  string   `toml:"synchronous" oneof:"normal,full"`
	BusyTimeout  Duration `toml:"busy_timeout" range:"100ms,5m"`
	ReadConns    int      `toml:"read_conns" range:"1,64"`
}

// AuthConfig selects who may call the API.
type AuthConfig struct {
	Mode string `toml:"mode" oneof:"local,team,hybrid"`
	// SecretFile holds the token signing secret; empty means auth-secret in
	// the data folder.
	SecretFile string `toml:"secret_file"`
	// TokenTTL is the lifetime of a token when none is asked for.
	TokenTTL Duration `toml:"token_ttl" range:"1m,87600h"`
	// RateWindow is the fixed window of the rate limits; the Rate* keys
	// are the requests allowed per actor and operation in one window.
	RateWindow      Duration `toml:"rate_window" range:"1s,24h"`
	RateForget      int      `toml:"rate_forget" range:"1,1000000"`
	RateModify      int      `toml:"rate_modify" range:"1,1000000"`
	RateBatchForget int      `toml:"rate_batch_forget" range:"1,1000000"`
	RateAdmin       int      `toml:"rate_admin" range:"1,1000000"`
	// RateDocuments bounds document creation per caller and window, in
	// every auth mode (a document costs a fetch, chunking and embedding).
	RateDocuments int `toml:"rate_documents" range:"1,1000000"`
}

// MemoryConfig holds the memory lifecycle's limits.
type MemoryConfig struct {
	DefaultImportance      float64  `toml:"default_importance" range:"0,1"`
	RecoverWindow          Duration `toml:"recover_window" range:"1h,8760h"`
	ForgetConfirmThreshold int      `toml:"forget_confirm_threshold" range:"1,10000"`
	MaxBatch               int      `toml:"max_batch" range:"1,10000"`
	// SupersedeAttributes: a remembered statement the linker can read
	// ("staging runs Postgres 16") supersedes the memory holding the
	// value it replaces (core/evolution/attributes.go).
	SupersedeAttributes bool `toml:"supersede_attributes"`
	// EvidenceWeight is how much a memory's evidence (confidence ×
	// reinforcement × staleness, docs/design/evolution.md, "Evidence")
	// weighs in recall: its score is multiplied by
	// evidence^EvidenceWeight; 0 turns it off.
	EvidenceWeight float64 `toml:"evidence_weight" range:"0,1"`
	// ExtraTypes are memory types a person may pick (the TUI's form, the
	// CLI's --type) besides the built-in ones (core.KnownTypes); a type
	// outside both is refused as a likely typo.
	ExtraTypes []string `toml:"extra_types"`
}

// GuardrailsConfig bounds what a single remember may store.
type GuardrailsConfig struct {
	// MaxContentChars: longer content is split into chunks of about
	// ChunkTargetChars, each its own memory linked by a group id.
	MaxContentChars  int `toml:"max_content_chars" range:"50,100000"`
	ChunkTargetChars int `toml:"chunk_target_chars" range:"50,50000"`
	// MaxRememberChars: content longer than this is refused outright; long
	// documents belong in the documents API.
	MaxRememberChars    int `toml:"max_remember_chars" range:"100,10000000"`
	RecallTruncateChars int `toml:"recall_truncate_chars" range:"50,100000"`
}

// PipelineConfig holds the pipeline's mode flags.
type PipelineConfig struct {
	Enabled         bool `toml:"enabled"`
	ShadowMode      bool `toml:"shadow_mode"`
	MutationsFrozen bool `toml:"mutations_frozen"`
}

// LogConfig configures logging.
type LogConfig struct {
	Level string `toml:"level" oneof:"debug,info,warn,error"`
	// File is the log file; empty means cairn.log in the state folder.
	File string `toml:"file"`
}

// DefaultConfig returns the configuration used when nothing is set, built
// from the Default* constants; keys without one are off, empty or 0.
func DefaultConfig() Config {
	return Config{
		Server: ServerConfig{
			Addr:            DefaultAddr,
			MaxBodyBytes:    DefaultServerMaxBodyBytes,
			ShutdownTimeout: Duration(DefaultServerShutdownTimeout),
			ReadTimeout:     Duration(DefaultServerReadTimeout),
			WriteTimeout:    Duration(DefaultServerWriteTimeout),
			IdleTimeout:     Duration(DefaultServerIdleTimeout),
			MaxConcurrent:   DefaultServerMaxConcurrent,
			QueueTimeout:    Duration(DefaultServerQueueTimeout),
		},
		Storage: StorageConfig{
			Synchronous: DefaultStorageSynchronous,
			BusyTimeout: Duration(DefaultStorageBusyTimeout),
			ReadConns:   DefaultStorageReadConns,
		},
		Auth: AuthConfig{
			Mode:            DefaultAuthMode,
			TokenTTL:        Duration(DefaultAuthTokenTTL),
			RateWindow:      Duration(DefaultAuthRateWindow),
			RateForget:      DefaultAuthRateForget,
			RateModify:      DefaultAuthRateModify,
			RateBatchForget: DefaultAuthRateBatchForget,
			RateAdmin:       DefaultAuthRateAdmin,
			RateDocuments:   DefaultAuthRateDocuments,
		},
		Memory: MemoryConfig{
			DefaultImportance:      DefaultMemoryImportance,
			RecoverWindow:          Duration(DefaultMemoryRecoverWindow),
			ForgetConfirmThreshold: DefaultMemoryForgetConfirmThreshold,
			MaxBatch:               DefaultMemoryMaxBatch,
			SupersedeAttributes:    DefaultMemorySupersedeAttributes,
			EvidenceWeight:         DefaultMemoryEvidenceWeight,
		},
		Guardrails: GuardrailsConfig{
			MaxContentChars:     DefaultGuardrailsMaxContentChars,
			ChunkTargetChars:    DefaultGuardrailsChunkTargetChars,
			MaxRememberChars:    DefaultGuardrailsMaxRememberChars,
			RecallTruncateChars: DefaultGuardrailsRecallTruncateChars,
		},
		Embedding: EmbeddingConfig{
			Provider:        DefaultEmbeddingProvider,
			Timeout:         Duration(DefaultEmbeddingTimeout),
			BatchSize:       DefaultEmbeddingBatchSize,
			TrackerInterval: Duration(DefaultEmbeddingTrackerInterval),
			TrackerBatch:    DefaultEmbeddingTrackerBatch,
		},
		Search: SearchConfig{
			Alpha:          DefaultSearchAlpha,
			MinScore:       DefaultSearchMinScore,
			TopK:           DefaultSearchTopK,
			DecayRate:      DefaultSearchDecayRate,
			Fusion:         DefaultSearchFusion,
			CoverageWeight: DefaultSearchCoverageWeight,
			SpeakerWeight:  DefaultSearchSpeakerWeight,
			SpeakerMargin:  DefaultSearchSpeakerMargin,
			CoverageIDF:    DefaultSearchCoverageIDF,
			NeighborWeight: DefaultSearchNeighborWeight,
			Dampening:      DefaultSearchDampening,

			MinVectorSimilarity: DefaultSearchMinVectorSimilarity,
			KeywordIndex:        DefaultSearchKeywordIndex,
			SessionContext:      DefaultSearchSessionContext,
		},
		Graph:      DefaultGraphConfig(),
		Reranker:   DefaultRerankerConfig(),
		Connectors: DefaultConnectorsConfig(),
		Continuity: DefaultContinuityConfig(),
		Predictor:  DefaultPredictorConfig(),
		Feedback:   DefaultFeedbackConfig(),
		Hints:      HintsConfig{Max: DefaultHintsMax, LLM: DefaultHintsLLM, Timeout: Duration(DefaultHintsTimeout)},
		Pipeline:   PipelineConfig{Enabled: DefaultPipelineEnabled, ShadowMode: DefaultPipelineShadowMode},
		PipelineV2: DefaultPipelineV2Config(),
		Hooks:      DefaultHooksConfig(),
		Log:        LogConfig{Level: DefaultLogLevel},
		Documents:  DefaultDocumentsConfig(),
		Retention: RetentionConfig{
			Enabled:             DefaultRetentionEnabled,
			Interval:            Duration(DefaultRetentionInterval),
			TombstoneWindow:     Duration(DefaultRetentionTombstoneWindow),
			HistoryWindow:       Duration(DefaultRetentionHistoryWindow),
			CompletedJobsWindow: Duration(DefaultRetentionCompletedJobsWindow),
			DeadJobsWindow:      Duration(DefaultRetentionDeadJobsWindow),
			BatchSize:           DefaultRetentionBatchSize,
			MaxBatches:          DefaultRetentionMaxBatches,
			PruneMinAge:         Duration(DefaultRetentionPruneMinAge),
			MaxMemoriesUser:     DefaultRetentionMaxMemoriesUser,
			MaxMemoriesPerAgent: DefaultRetentionMaxMemoriesPerAgent,
		},
		Maintenance: MaintenanceConfig{
			Mode:                  DefaultMaintenanceMode,
			Interval:              Duration(DefaultMaintenanceInterval),
			RequeueCooldown:       Duration(DefaultMaintenanceRequeueCooldown),
			RequeueHourlyBudget:   DefaultMaintenanceRequeueHourlyBudget,
			ReembedCooldown:       Duration(DefaultMaintenanceReembedCooldown),
			ReembedHourlyBudget:   DefaultMaintenanceReembedHourlyBudget,
			FTSCooldown:           Duration(DefaultMaintenanceFTSCooldown),
			FTSHourlyBudget:       DefaultMaintenanceFTSHourlyBudget,
			DedupCooldown:         Duration(DefaultMaintenanceDedupCooldown),
			DedupHourlyBudget:     DefaultMaintenanceDedupHourlyBudget,
			RetentionCooldown:     Duration(DefaultMaintenanceRetentionCooldown),
			RetentionHourlyBudget: DefaultMaintenanceRetentionHourlyBudget,
		},
	}
}

// Duration is a time.Duration written in config as "30s", "6h" or "720h".
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalText renders d like "30s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 30s, 5m or 6h", string(b))
	}
	*d = Duration(v)
	return nil
}

// Paths are the files cairn reads and writes.
type Paths struct {
	ConfigFile string
	DataDir    string
	Database   string
	LogDir     string
	LogFile    string
}

// ConfigError names the key, the value and what was expected.
type ConfigError struct {
	Key    string
	Value  string
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("config: %s: %s", e.Key, e.Reason)
	}
	return fmt.Sprintf("config: %s = %s: %s", e.Key, e.Value, e.Reason)
}

// LoadOptions says where configuration comes from.
type LoadOptions struct {
	// Home, when set, holds config, data and logs (like CAIRN_HOME).
	Home string
	// ConfigFile overrides the config file path.
	ConfigFile string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Overrides are command-line settings keyed "section.key"; they win
	// over everything else.
	Overrides map[string]string
}

// LoadConfig resolves paths, reads the config file if it exists, applies the
// environment and overrides, and validates the result.
func LoadConfig(opts LoadOptions) (*Config, Paths, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	paths, err := resolvePaths(opts, getenv)
	if err != nil {
		return nil, paths, err
	}
	cfg := DefaultConfig()
	if b, err := os.ReadFile(paths.ConfigFile); err == nil {
		if err := decodeConfigFile(b, &cfg); err != nil {
			return nil, paths, fmt.Errorf("%s: %w", paths.ConfigFile, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) || opts.ConfigFile != "" {
		return nil, paths, fmt.Errorf("read config: %w", err)
	}
	if err := applyEnv(&cfg, getenv); err != nil {
		return nil, paths, err
	}
	keys := make([]string, 0, len(opts.Overrides))
	for k := range opts.Overrides {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := cfg.Set(k, opts.Overrides[k]); err != nil {
			return nil, paths, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, paths, err
	}
	if cfg.Storage.URL != "" {
		paths.Database = RedactURL(cfg.Storage.URL) // shown; storage.url is opened
	}
	if cfg.Storage.Path != "" {
		paths.Database = cfg.Storage.Path
		paths.DataDir = filepath.Dir(cfg.Storage.Path)
	}
	if cfg.Log.File != "" {
		paths.LogFile = cfg.Log.File
		paths.LogDir = filepath.Dir(cfg.Log.File)
	}
	return &cfg, paths, nil
}

func resolvePaths(opts LoadOptions, getenv func(string) string) (Paths, error) {
	var p Paths
	home := opts.Home
	if home == "" {
		home = getenv("CAIRN_HOME")
	}
	if home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return p, err
		}
		p = Paths{
			ConfigFile: filepath.Join(abs, "config.toml"),
			DataDir:    abs,
			LogDir:     filepath.Join(abs, "logs"),
		}
	} else {
		userHome := getenv("HOME")
		if userHome == "" {
			userHome, _ = os.UserHomeDir()
		}
		xdg := func(env, fallback string) string {
			if v := getenv(env); v != "" && filepath.IsAbs(v) {
				return v
			}
			return filepath.Join(userHome, fallback)
		}
		p = Paths{
			ConfigFile: filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "cairn", "config.toml"),
			DataDir:    filepath.Join(xdg("XDG_DATA_HOME", filepath.Join(".local", "share")), "cairn"),
			LogDir:     filepath.Join(xdg("XDG_STATE_HOME", filepath.Join(".local", "state")), "cairn"),
		}
	}
	if opts.ConfigFile != "" {
		p.ConfigFile = opts.ConfigFile
	}
	p.Database = filepath.Join(p.DataDir, "memories.db")
	p.LogFile = filepath.Join(p.LogDir, "cairn.log")
	return p, nil
}

func decodeConfigFile(b []byte, cfg *Config) error {
	md, err := toml.NewDecoder(bytes.NewReader(cfg.specialNumbers(b))).Decode(cfg)
	if err != nil {
		// A mistake in the file is a configuration error (exit 2), named
		// by its line and key.
		var perr toml.ParseError
		if p := (*toml.ParseError)(nil); errors.As(err, &p) && p != nil {
			perr = *p
		} else if !errors.As(err, &perr) {
			// A value of the wrong type: "toml: line N (last key K): why".
			where, why, ok := strings.Cut(strings.TrimPrefix(err.Error(), "toml: "), "): ")
			if !ok {
				return &ConfigError{Key: "file", Reason: err.Error()}
			}
			return &ConfigError{Key: where + ")", Reason: why}
		}
		key := fmt.Sprintf("line %d", perr.Position.Line)
		if perr.LastKey != "" {
			key += ": " + perr.LastKey
		}
		return &ConfigError{Key: key, Reason: perr.Message}
	}
	if und := md.Undecoded(); len(und) > 0 {
		names := make([]string, len(und))
		for i, k := range und {
			names[i] = k.String()
		}
		return &ConfigError{Key: strings.Join(names, ", "), Reason: "unknown key (see `cairn config` for every key)"}
	}
	return nil
}

// configField is one leaf key of Config found by reflection.
type configField struct {
	key   string // "section.key"
	value reflect.Value
	field reflect.StructField
}

func (c *Config) fields() []configField {
	var out []configField
	root := reflect.ValueOf(c).Elem()
	for i := 0; i < root.NumField(); i++ {
		sec := root.Type().Field(i)
		secVal := root.Field(i)
		if secVal.Kind() != reflect.Struct {
			continue // a table of named tables ([projects.NAME]), checked on its own
		}
		for j := 0; j < secVal.NumField(); j++ {
			f := secVal.Type().Field(j)
			out = append(out, configField{
				key:   sec.Tag.Get("toml") + "." + f.Tag.Get("toml"),
				value: secVal.Field(j),
				field: f,
			})
		}
	}
	return out
}

// Keys lists every configuration key as "section.key".
func (c *Config) Keys() []string {
	var out []string
	for _, f := range c.fields() {
		out = append(out, f.key)
	}
	return out
}

// EnvName is the environment variable that sets key, e.g. CAIRN_AUTH_MODE.
func EnvName(key string) string {
	return "CAIRN_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func applyEnv(c *Config, getenv func(string) string) error {
	for _, f := range c.fields() {
		if v := getenv(EnvName(f.key)); v != "" {
			if err := setField(f, v); err != nil {
				err.Key = EnvName(f.key)
				return err
			}
		}
	}
	// CAIRN_ADDR is the short form of CAIRN_SERVER_ADDR.
	if v := getenv("CAIRN_ADDR"); v != "" {
		c.Server.Addr = v
	}
	return nil
}

// Set assigns one key ("section.key") from its string form.
func (c *Config) Set(key, value string) error {
	for _, f := range c.fields() {
		if f.key == key {
			if err := setField(f, value); err != nil {
				return err
			}
			return nil
		}
	}
	return &ConfigError{Key: key, Reason: "unknown key"}
}

var durationType = reflect.TypeOf(Duration(0))

func setField(f configField, raw string) *ConfigError {
	raw = strings.TrimSpace(raw)
	value, word, _, isSpecial := special(f.field)
	if isSpecial && strings.EqualFold(raw, word) {
		raw = value
	}
	bad := func(want string) *ConfigError {
		if isSpecial {
			want += " or " + strconv.Quote(word)
		}
		return &ConfigError{Key: f.key, Value: strconv.Quote(raw), Reason: "want " + want}
	}
	v := f.value
	switch {
	case v.Type() == durationType:
		var d Duration
		if err := d.UnmarshalText([]byte(raw)); err != nil {
			return bad("a duration like 30s, 5m or 6h")
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(raw)
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return bad("true or false")
		}
		v.SetBool(b)
	case v.Kind() == reflect.Int || v.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return bad("an integer")
		}
		v.SetInt(n)
	case v.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return bad("a number")
		}
		v.SetFloat(x)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		// A list is written comma-separated in the environment and on the
		// command line.
		var list []string
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				list = append(list, item)
			}
		}
		v.Set(reflect.ValueOf(list))
	default:
		return &ConfigError{Key: f.key, Reason: "cannot be set from text"}
	}
	return nil
}

// Validate checks every key against its allowed values and the rules that
// relate keys to each other.
func (c *Config) Validate() error {
	for _, f := range c.fields() {
		if err := checkField(f); err != nil {
			return err
		}
	}
	if c.Guardrails.ChunkTargetChars > c.Guardrails.MaxContentChars {
		return &ConfigError{Key: "guardrails.chunk_target_chars", Value: strconv.Itoa(c.Guardrails.ChunkTargetChars),
			Reason: fmt.Sprintf("must not exceed guardrails.max_content_chars (%d)", c.Guardrails.MaxContentChars)}
	}
	if c.Guardrails.MaxRememberChars < c.Guardrails.MaxContentChars {
		return &ConfigError{Key: "guardrails.max_remember_chars", Value: strconv.Itoa(c.Guardrails.MaxRememberChars),
			Reason: fmt.Sprintf("must be at least guardrails.max_content_chars (%d)", c.Guardrails.MaxContentChars)}
	}
	if c.Retention.TombstoneWindow < c.Memory.RecoverWindow {
		return &ConfigError{Key: "retention.tombstone_window", Value: c.Retention.TombstoneWindow.D().String(),
			Reason: fmt.Sprintf("must not be shorter than memory.recover_window (%s): a memory must stay recoverable until its window ends", c.Memory.RecoverWindow.D())}
	}
	if c.Documents.ChunkOverlap >= c.Documents.ChunkSize {
		return &ConfigError{Key: "documents.chunk_overlap", Value: strconv.Itoa(c.Documents.ChunkOverlap),
			Reason: fmt.Sprintf("must be smaller than documents.chunk_size (%d)", c.Documents.ChunkSize)}
	}
	if err := c.Feedback.validate(); err != nil {
		return err
	}
	for _, t := range c.Memory.ExtraTypes {
		if !typeName(t) {
			return &ConfigError{Key: "memory.extra_types", Value: strconv.Quote(t), Reason: "want lowercase letters, digits, - or _, starting with a letter, at most 32"}
		}
	}
	if err := validateAddr(c.Server.Addr); err != nil {
		return &ConfigError{Key: "server.addr", Value: strconv.Quote(c.Server.Addr), Reason: err.Error()}
	}
	if err := c.validateAllowed(); err != nil {
		return err
	}
	if err := c.validateProjects(); err != nil {
		return err
	}
	if err := c.Storage.validate(); err != nil {
		return err
	}
	if host, _, _ := splitHostPort(c.Server.Addr); c.Auth.Mode == "local" && !IsLoopbackHost(host) {
		return &ConfigError{Key: "server.addr", Value: strconv.Quote(c.Server.Addr),
			Reason: "auth.mode = local has no authentication, so cairn only listens on loopback (127.0.0.1, ::1, localhost); use auth.mode = team or hybrid to listen on other addresses"}
	}
	return nil
}

func checkField(f configField) error {
	v := f.value
	if oneof := f.field.Tag.Get("oneof"); oneof != "" {
		allowed := strings.Split(oneof, ",")
		if !slices.Contains(allowed, v.String()) {
			return &ConfigError{Key: f.key, Value: strconv.Quote(v.String()), Reason: "allowed: " + strings.Join(allowed, ", ")}
		}
	}
	rng := f.field.Tag.Get("range")
	if rng == "" {
		return nil
	}
	lo, hi, _ := strings.Cut(rng, ",")
	if v.Type() == durationType {
		min, _ := time.ParseDuration(lo)
		max, _ := time.ParseDuration(hi)
		d := time.Duration(v.Int())
		if d < min || d > max {
			return &ConfigError{Key: f.key, Value: d.String(), Reason: fmt.Sprintf("allowed range %s to %s", lo, hi)}
		}
		return nil
	}
	min, _ := strconv.ParseFloat(lo, 64)
	max, _ := strconv.ParseFloat(hi, 64)
	var x float64
	var shown string
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		x, shown = float64(v.Int()), strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		x, shown = v.Float(), strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	if x != x || x < min || x > max { // x != x catches NaN
		return &ConfigError{Key: f.key, Value: shown, Reason: fmt.Sprintf("allowed range %s to %s", lo, hi)}
	}
	return nil
}

// TOML renders the configuration as a config.toml with every key.
func (c *Config) TOML() string {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	shown := *c
	shown.Storage.URL = RedactURL(c.Storage.URL)
	_ = enc.Encode(&shown)
	return c.specialWords(buf.String())
}

// special reads a field's special:"VALUE=WORD: meaning" tag.
func special(f reflect.StructField) (value, word, meaning string, ok bool) {
	tag := f.Tag.Get("special")
	if tag == "" {
		return "", "", "", false
	}
	value, rest, _ := strings.Cut(tag, "=")
	word, meaning, _ = strings.Cut(rest, ": ")
	return value, word, meaning, true
}

// specialLines calls fn with each "key = value" line of a config file
// (its "section.key" and value), replacing the line with what fn returns.
func specialLines(doc string, fn func(key, line, value string) string) string {
	lines := strings.Split(doc, "\n")
	section := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[] ")
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && !strings.HasPrefix(t, "#") {
			lines[i] = fn(section+"."+strings.TrimSpace(k), l, strings.TrimSpace(v))
		}
	}
	return strings.Join(lines, "\n")
}

// specialWords shows each special value of a rendered config as its word
// with what it means: min_vector_similarity = "auto" # the floor …
func (c *Config) specialWords(doc string) string {
	fields := map[string]reflect.StructField{}
	for _, f := range c.fields() {
		fields[f.key] = f.field
	}
	return specialLines(doc, func(key, line, v string) string {
		value, word, meaning, ok := special(fields[key])
		x, err1 := strconv.ParseFloat(v, 64)
		y, err2 := strconv.ParseFloat(value, 64)
		if !ok || err1 != nil || err2 != nil || x != y {
			return line
		}
		name, _, _ := strings.Cut(line, "=")
		return fmt.Sprintf("%s= %q # %s", name, word, meaning)
	})
}

// specialNumbers turns the words of special values in a config file back
// into their numbers, line for line (errors keep their line numbers).
func (c *Config) specialNumbers(b []byte) []byte {
	fields := map[string]reflect.StructField{}
	for _, f := range c.fields() {
		fields[f.key] = f.field
	}
	return []byte(specialLines(string(b), func(key, line, v string) string {
		value, word, _, ok := special(fields[key])
		if ok {
			if s, _, _ := strings.Cut(v, "#"); strings.EqualFold(strings.TrimSpace(s), strconv.Quote(word)) {
				name, _, _ := strings.Cut(line, "=")
				return name + "= " + value
			}
		}
		return line
	}))
}

// typeName reports whether t may name a configured memory type:
// lowercase letters, digits, - or _, starting with a letter, at most 32.
func typeName(t string) bool {
	if t == "" || len(t) > 32 || t[0] < 'a' || t[0] > 'z' {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func validateAddr(addr string) error {
	host, port, err := splitHostPort(addr)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port must be a number from 0 to 65535")
	}
	if host == "" {
		return fmt.Errorf("give a host, like %s (an empty host listens on every interface)", DefaultAddr)
	}
	return nil
}

// IsLoopbackHost reports whether host (from a listen address) is loopback.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

func splitHostPort(addr string) (string, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", fmt.Errorf("want host:port, like %s", DefaultAddr)
	}
	return host, port, nil
}
