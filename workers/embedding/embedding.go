// Package embedding provides cairn's embedding providers: the built-in
// offline model (uselite), an Ollama server, and any server speaking the
// OpenAI embeddings API (OpenAI itself, llama.cpp server, LM Studio, vLLM).
//
// New picks the provider named by the configuration. Every provider is safe
// for concurrent use, and every one also implements Checker, a cheap health
// check for status pages. The built-in provider implements Warmer so the
// model can be loaded in the background at startup.
package embedding

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

// Provider defaults, applied by New and the New* constructors when the
// configuration leaves a field empty (a zero timeout or batch size takes
// config.DefaultEmbeddingTimeout or config.DefaultEmbeddingBatchSize).
const (
	DefaultOllamaModel   = "nomic-embed-text"
	DefaultOllamaBaseURL = "http://127.0.0.1:11434"
	DefaultOpenAIModel   = "text-embedding-3-small"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"

	// MaxResponseBytes bounds the body read from an embedding server.
	MaxResponseBytes = 64 << 20

	// openAIHost is the only host for which an API key is required.
	openAIHost = "api.openai.com"
)

// Checker is implemented by every provider: Check does the cheapest thing
// that proves the provider can embed (load the built-in model, reach the
// server and find the model) and returns a descriptive error if not.
type Checker interface {
	Check(ctx context.Context) error
}

// Warmer is implemented by providers that benefit from preloading (the
// built-in model). Warm starts the work if it has not started and waits for
// it, or for ctx; call it in a goroutine to avoid blocking startup.
type Warmer interface {
	Warm(ctx context.Context) error
}

// New returns the embedder named by cfg.Provider, with the defaults applied
// and cfg validated. It returns nil, nil for provider "none". An empty
// provider means "builtin". Nothing is loaded or contacted here.
func New(cfg config.EmbeddingConfig) (vectors.Embedder, error) {
	switch p := strings.ToLower(strings.TrimSpace(cfg.Provider)); p {
	case "", "builtin":
		return NewBuiltin(cfg)
	case "ollama":
		return NewOllama(cfg)
	case "openai":
		return NewOpenAI(cfg)
	case "none":
		return nil, nil
	default:
		return nil, &config.ConfigError{Key: "embedding.provider", Value: fmt.Sprintf("%q", cfg.Provider),
			Reason: "want one of builtin, ollama, openai, none"}
	}
}

// common holds the settings shared by the providers, with defaults applied.
type common struct {
	model      string
	timeout    time.Duration
	batchSize  int
	dimensions int
}

func commonSettings(cfg config.EmbeddingConfig, defaultModel string) (common, error) {
	c := common{
		model:      strings.TrimSpace(cfg.Model),
		timeout:    cfg.Timeout.D(),
		batchSize:  cfg.BatchSize,
		dimensions: cfg.Dimensions,
	}
	if c.model == "" {
		c.model = defaultModel
	}
	if c.timeout <= 0 {
		c.timeout = config.DefaultEmbeddingTimeout
	}
	if c.batchSize <= 0 {
		c.batchSize = config.DefaultEmbeddingBatchSize
	}
	if c.dimensions < 0 {
		return c, &config.ConfigError{Key: "embedding.dimensions", Value: fmt.Sprint(c.dimensions),
			Reason: "want 0 (accept what the provider answers) or a positive length"}
	}
	return c, nil
}

// parseBaseURL validates an embedding server's base URL and returns it
// without a trailing slash.
func parseBaseURL(raw, def string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = def
	}
	bad := func(reason string) error {
		return &config.ConfigError{Key: "embedding.base_url", Value: fmt.Sprintf("%q", raw), Reason: reason}
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
	if u.Host == "" || u.Hostname() == "" {
		return nil, bad("the URL has no host; want something like " + def)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, bad("the URL must not have a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// openAIKey returns the configured key, or OPENAI_API_KEY.
func openAIKey(cfg config.EmbeddingConfig) string {
	if k := strings.TrimSpace(cfg.APIKey); k != "" {
		return k
	}
	return strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
}

var (
	_ vectors.Embedder = (*Builtin)(nil)
	_ vectors.Embedder = (*Ollama)(nil)
	_ vectors.Embedder = (*OpenAI)(nil)
	_ Checker          = (*Builtin)(nil)
	_ Checker          = (*Ollama)(nil)
	_ Checker          = (*OpenAI)(nil)
	_ Warmer           = (*Builtin)(nil)
)

// builtinModelName is the only model the builtin provider has.
const builtinModelName = uselite.ModelName
