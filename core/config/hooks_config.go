package config

// HooksConfig tunes what the agent hooks inject and keep.
type HooksConfig struct {
	// MaxInjectChars caps any inject (Claude Code cuts additionalContext at
	// 10,000 characters).
	MaxInjectChars int `toml:"max_inject_chars" range:"500,100000"`
	// SessionStartChars is the budget of the session-start memory list.
	SessionStartChars int `toml:"session_start_chars" range:"0,100000"`
	// SessionStartCandidates is how many of the newest memories are
	// considered at session start (pinned ones always are).
	SessionStartCandidates int `toml:"session_start_candidates" range:"1,10000"`
	// IdentityDir holds optional AGENTS.md, USER.md and MEMORY.md added to
	// the session-start inject; empty turns them off.
	IdentityDir string `toml:"identity_dir"`
	// PromptMinScore gates prompt recall: nothing is injected unless the
	// best hit's real score reaches it, and weaker hits are dropped.
	PromptMinScore float64 `toml:"prompt_min_score" range:"0,1"`
	// PromptMinCoverage: a memory is injected for a prompt when it holds
	// this share of the prompt's words, weighted by rarity in the store.
	PromptMinCoverage float64 `toml:"prompt_min_coverage" range:"0,1"`
	// PromptUnknownWeight: a word of the prompt no memory holds (and
	// not written as a name) counts at this share of the rarest word's
	// weight: the memories do not hold what it asks about.
	PromptUnknownWeight float64 `toml:"prompt_unknown_weight" range:"0,3"`
	// PromptMinSimilarity: or when its similarity reaches this; -1 uses
	// the floor measured for the embedding model.
	PromptMinSimilarity float64 `toml:"prompt_min_similarity" range:"-1,1" special:"-1=auto: the floors measured for the embedding model"`
	// PromptChars and PromptMaxMemories bound each prompt's inject.
	PromptChars       int `toml:"prompt_chars" range:"0,10000"`
	PromptMaxMemories int `toml:"prompt_max_memories" range:"0,50"`
	// UserChars and AgentChars are the session-start budgets of the user
	// scope (memories that follow the user into every project) and of the
	// agent scope (the hook's agent's own), apart from the project's.
	UserChars  int `toml:"user_chars" range:"0,100000"`
	AgentChars int `toml:"agent_chars" range:"0,100000"`
	// PromptScopeMemories is the most user and agent memories a prompt's
	// inject adds, beside prompt_max_memories of its project.
	PromptScopeMemories int `toml:"prompt_scope_memories" range:"0,50"`
	// DedupPrompts: a memory injected as an answer in the last N prompts
	// of a session is not injected again, nor one only offered (at session
	// start, or as a near meaning) that the prompt is not about.
	DedupPrompts int `toml:"dedup_prompts" range:"0,1000"`
	// StoreInstructions: session start tells the agent, in a few lines,
	// when to store a memory with cairn's MCP tool (a decision made, a
	// preference stated, a fix found).
	StoreInstructions bool `toml:"store_instructions"`
	// CrossProject lets hooks inject memories of other projects.
	CrossProject bool `toml:"cross_project"`
	// TranscriptMaxChars caps a stored (normalized) transcript; longer
	// ones keep their beginning and end.
	TranscriptMaxChars int `toml:"transcript_max_chars" range:"1000,100000000"`
	// MaxBodyBytes bounds hook request bodies (inline transcripts).
	MaxBodyBytes int64 `toml:"max_body_bytes" range:"1024,1073741824"`
	// Autostart: when `cairn hook` finds no running cairn it answers from
	// the store itself (read-only) and starts `cairn serve --idle-exit
	// AutostartIdleExit` in the background for the next hooks.
	Autostart bool `toml:"autostart"`
	// AutostartIdleExit is how long a server started by a hook stays up
	// without a request.
	AutostartIdleExit Duration `toml:"autostart_idle_exit" range:"1m,720h"`
}

// DefaultHooksConfig is the hooks section of DefaultConfig.
func DefaultHooksConfig() HooksConfig {
	return HooksConfig{
		MaxInjectChars:         DefaultHooksMaxInjectChars,
		SessionStartChars:      DefaultHooksSessionStartChars,
		SessionStartCandidates: DefaultHooksSessionStartCandidates,
		PromptMinScore:         DefaultHooksPromptMinScore,
		PromptMinCoverage:      DefaultHooksPromptMinCoverage,
		PromptUnknownWeight:    DefaultHooksPromptUnknownWeight,
		PromptMinSimilarity:    DefaultHooksPromptMinSimilarity,
		PromptChars:            DefaultHooksPromptChars,
		PromptMaxMemories:      DefaultHooksPromptMaxMemories,
		DedupPrompts:           DefaultHooksDedupPrompts,
		StoreInstructions:      DefaultHooksStoreInstructions,
		UserChars:              DefaultHooksUserChars,
		AgentChars:             DefaultHooksAgentChars,
		PromptScopeMemories:    DefaultHooksPromptScopeMemories,
		TranscriptMaxChars:     DefaultHooksTranscriptMaxChars,
		MaxBodyBytes:           DefaultHooksMaxBodyBytes,
		Autostart:              DefaultHooksAutostart,
		AutostartIdleExit:      Duration(DefaultHooksAutostartIdleExit),
	}
}

// HintsConfig turns on prospective indexing (docs/design/search.md,
// "Hints"): each memory gets a few hypothetical questions it answers,
// searched beside its content.
type HintsConfig struct {
	Enabled bool `toml:"enabled"`
	Max     int  `toml:"max" range:"1,20"`
	// LLM has the pipeline's model (pipeline_v2.provider, not the built-in
	// heuristic) write each memory's questions in a prospective_index
	// job, replacing the heuristic ones.
	LLM bool `toml:"llm"`
	// Timeout bounds one generation.
	Timeout Duration `toml:"timeout" range:"5s,5m"`
}
