package llm

import (
	"context"
	"net/http"
	"time"

	"github.com/cairnmem/cairn/core/extract"
)

// Ollama generates with an Ollama server: POST {base}/api/generate with
// {"model", "prompt", "stream": false, "format": "json" (JSON calls only),
// "options": {"num_predict": N}}, answered by {"response": "..."}.
type Ollama struct{ c *client }

// NewOllama returns an Ollama provider (defaults: model llama3.2:3b, base
// URL from OLLAMA_HOST or http://127.0.0.1:11434). Nothing is contacted.
func NewOllama(cfg Config) (*Ollama, error) {
	base, err := parseBaseURL("extraction.base_url", cfg.BaseURL, ollamaDefaultBase())
	if err != nil {
		return nil, err
	}
	return &Ollama{c: newClient(ProviderOllama, resolve(cfg, DefaultOllamaModel), base)}, nil
}

// Name returns "ollama/<model>".
func (o *Ollama) Name() string { return ProviderOllama + "/" + o.c.model }

// Model returns the model name.
func (o *Ollama) Model() string { return o.c.model }

type ollamaGenerateRequest struct {
	Model   string        `json:"model"`
	Prompt  string        `json:"prompt"`
	Stream  bool          `json:"stream"`
	Format  string        `json:"format,omitempty"`
	Options ollamaOptions `json:"options"`
}

type ollamaOptions struct {
	NumPredict int `json:"num_predict"`
}

type ollamaGenerateResponse struct {
	Response        string `json:"response"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int64  `json:"prompt_eval_count"`
	EvalCount       int64  `json:"eval_count"`
}

// Generate sends one non-streaming generate request.
func (o *Ollama) Generate(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	out, _, err := o.GenerateUsage(ctx, prompt, opts)
	return out, err
}

// GenerateUsage is Generate with the call's tokens (prompt_eval_count,
// eval_count).
func (o *Ollama) GenerateUsage(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, Usage, error) {
	timeout, maxTokens := o.c.call(opts)
	req := ollamaGenerateRequest{Model: o.c.model, Prompt: prompt, Options: ollamaOptions{NumPredict: maxTokens}}
	if opts.JSON {
		req.Format = "json"
	}
	var resp ollamaGenerateResponse
	if err := o.c.post(ctx, timeout, "/api/generate", req, &resp); err != nil {
		return "", Usage{}, err
	}
	return resp.Response, usageOf(prompt, resp.Response, resp.PromptEvalCount, resp.EvalCount), nil
}

// ollamaAvailable reports whether GET {base}/api/tags answers 200 within
// timeout.
func ollamaAvailable(ctx context.Context, base string, timeout time.Duration) bool {
	u, err := parseBaseURL("ollama", base, DefaultOllamaBaseURL)
	if err != nil {
		return false
	}
	c := newClient(ProviderOllama, settings{timeout: timeout}, u)
	c.MaxBody = 1 << 20
	status, _, err := c.Do(ctx, timeout, http.MethodGet, c.Endpoint("/api/tags"), nil)
	return err == nil && status == http.StatusOK
}
