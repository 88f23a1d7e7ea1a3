// Package llm provides cairn's LLM providers for pipeline extraction and
// decisions, each implementing core.LLM:
//
//   - ollama: an Ollama server, POST {base}/api/generate;
//   - openai: any OpenAI-compatible server (OpenAI, llama.cpp server,
//     LM Studio, vLLM), POST {base}/chat/completions;
//   - anthropic: the Anthropic Messages API, POST {base}/v1/messages;
//   - claude-code: the `claude` CLI, run as a subprocess with recursion
//     protection;
//   - heuristic: core.HeuristicExtract, no model at all.
//
// New builds the provider named by a Config ("auto" is the heuristic: a
// model runs in the background only when the user chose it); Detect finds
// the first available of claude-code, ollama and heuristic, for `cairn
// install` to offer. Budgeted meters a chosen model's calls and tokens per
// day and stops it at a daily budget. Every provider is safe for
// concurrent use, honours ctx and a per-call timeout, bounds the answer it
// reads, and returns *Error values that name the provider and the URL (or
// binary) it called, never an API key.
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/workers/internal/provider"
)

// Provider names.
const (
	ProviderOllama     = "ollama"
	ProviderOpenAI     = "openai"
	ProviderAnthropic  = "anthropic"
	ProviderClaudeCode = "claude-code"
	ProviderHeuristic  = "heuristic"
)

// Defaults applied when a Config field is empty.
const (
	DefaultOllamaBaseURL    = "http://127.0.0.1:11434"
	DefaultOllamaModel      = "llama3.2:3b"
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultOpenAIModel      = "gpt-4o-mini" // only when base_url is api.openai.com
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultAnthropicModel   = "claude-haiku-4-5"
	DefaultClaudeCodeModel  = "haiku"
	AnthropicVersion        = "2023-06-01"

	// DefaultMaxTokens is the "low" extraction strength.
	DefaultMaxTokens = 1024
	// MaxResponseBytes bounds what is read from a server or the CLI.
	MaxResponseBytes = 8 << 20

	openAIHost = "api.openai.com"
)

// Config selects and configures a provider. Empty fields take the
// provider's defaults.
type Config struct {
	Provider  string        // ollama, openai, anthropic, claude-code, heuristic; "" or "auto" → heuristic
	Model     string        // provider default when empty
	BaseURL   string        // ollama, openai, anthropic
	APIKey    string        // openai (else OPENAI_API_KEY), anthropic (else ANTHROPIC_API_KEY)
	Timeout   time.Duration // per call; config.DefaultPipelineV2Timeout when 0
	MaxTokens int           // per call; DefaultMaxTokens when 0
}

// Error is returned when a provider call fails; it names the provider, the
// endpoint URL or binary and what went wrong, never an API key.
type Error = provider.Error

// New returns the provider cfg names, with defaults applied and the
// configuration checked. Nothing is contacted here. Provider "" or "auto"
// is the heuristic: auto never spends a subscription or runs a model the
// user did not choose (Detect is what `cairn install` asks about).
func New(name string, cfg Config) (extract.LLM, error) {
	if name == "" {
		name = cfg.Provider
	}
	p := strings.ToLower(strings.TrimSpace(name))
	if p == "" || p == "auto" {
		p = ProviderHeuristic
	}
	if cfg.Timeout < 0 {
		return nil, &config.ConfigError{Key: "pipeline_v2.timeout", Value: cfg.Timeout.String(), Reason: "must not be negative"}
	}
	if cfg.MaxTokens < 0 {
		// No configuration key sets it: a caller's mistake, not a person's.
		return nil, fmt.Errorf("llm: MaxTokens %d must not be negative", cfg.MaxTokens)
	}
	switch p {
	case ProviderOllama:
		return NewOllama(cfg)
	case ProviderOpenAI:
		return NewOpenAI(cfg)
	case ProviderAnthropic:
		return NewAnthropic(cfg)
	case ProviderClaudeCode, "claude", "claude_code":
		return NewClaudeCode(cfg)
	case ProviderHeuristic, "none", "builtin":
		return NewHeuristic(), nil
	}
	return nil, &config.ConfigError{Key: "pipeline_v2.provider", Value: fmt.Sprintf("%q", name),
		Reason: "want one of auto, claude-code, ollama, openai, anthropic, heuristic"}
}

// settings are the resolved per-provider values.
type settings struct {
	model     string
	timeout   time.Duration
	maxTokens int
}

func resolve(cfg Config, defModel string) settings {
	s := settings{model: strings.TrimSpace(cfg.Model), timeout: cfg.Timeout, maxTokens: cfg.MaxTokens}
	if s.model == "" {
		s.model = defModel
	}
	if s.timeout <= 0 {
		s.timeout = config.DefaultPipelineV2Timeout
	}
	if s.maxTokens <= 0 {
		s.maxTokens = DefaultMaxTokens
	}
	return s
}

// call returns the timeout and token limit for one call.
func (s settings) call(opts extract.GenerateOptions) (time.Duration, int) {
	t, n := s.timeout, s.maxTokens
	if opts.Timeout > 0 {
		t = opts.Timeout
	}
	if opts.MaxTokens > 0 {
		n = opts.MaxTokens
	}
	return t, n
}

// parseBaseURL checks a base URL and drops a trailing slash.
func parseBaseURL(key, raw, def string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = def
	}
	bad := func(reason string) error {
		return &config.ConfigError{Key: key, Value: fmt.Sprintf("%q", raw), Reason: reason}
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, bad("not a URL: " + err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, bad("want an absolute http:// or https:// URL such as " + def)
	}
	if u.Hostname() == "" {
		return nil, bad("the URL has no host; want something like " + def)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, bad("the URL must not have a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// ollamaDefaultBase is OLLAMA_HOST (Ollama's own variable: "host:port" or a
// URL) when set, else DefaultOllamaBaseURL.
func ollamaDefaultBase() string {
	h := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if h == "" {
		return DefaultOllamaBaseURL
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	if u, err := url.Parse(h); err == nil {
		if u.Port() == "" {
			u.Host += ":11434"
		}
		if u.Hostname() == "0.0.0.0" {
			u.Host = strings.Replace(u.Host, "0.0.0.0", "127.0.0.1", 1)
		}
		return u.String()
	}
	return h
}

// Detect returns the name of the first available provider: claude-code
// when a `claude` binary is on PATH and `claude --version` succeeds within
// 2 s, ollama when GET {base}/api/tags answers 200 within 1 s (base from
// OLLAMA_HOST, else 127.0.0.1:11434), else heuristic.
func Detect(ctx context.Context) string {
	if claudeAvailable(ctx, 2*time.Second) {
		return ProviderClaudeCode
	}
	if ollamaAvailable(ctx, ollamaDefaultBase(), time.Second) {
		return ProviderOllama
	}
	return ProviderHeuristic
}

// Usage is what one model call cost: the tokens of its prompt and of its
// answer as the provider reported them, or estimated from the text (about
// four characters a token) when it reported none.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
	Estimated    bool
}

// UsageReporter is a provider that reports each call's usage; every
// model provider here is one (the heuristic costs nothing).
type UsageReporter interface {
	GenerateUsage(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, Usage, error)
}

// usageOf is a call's usage: the provider's counts, or an estimate from
// the prompt and answer when it gave none.
func usageOf(prompt, answer string, in, out int64) Usage {
	if in > 0 || out > 0 {
		return Usage{InputTokens: in, OutputTokens: out}
	}
	return Usage{InputTokens: estimateTokens(prompt), OutputTokens: estimateTokens(answer), Estimated: true}
}

// estimateTokens is about four characters a token.
func estimateTokens(s string) int64 { return int64(len(s)+3) / 4 }
