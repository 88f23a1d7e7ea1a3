package llm

import (
	"context"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"
)

// Anthropic generates with the Anthropic Messages API: POST
// {base}/v1/messages with headers x-api-key and anthropic-version
// 2023-06-01 and body {"model", "max_tokens", "messages": [{"role":
// "user", "content": prompt}]}, answered by content[0].text (the first text
// block). The API has no JSON switch; the prompt asks for JSON.
type Anthropic struct{ c *client }

// NewAnthropic returns an Anthropic provider (defaults: model
// claude-haiku-4-5, base URL https://api.anthropic.com). The key comes from
// the config or ANTHROPIC_API_KEY and is required.
func NewAnthropic(cfg Config) (*Anthropic, error) {
	base, err := parseBaseURL("extraction.base_url", cfg.BaseURL, DefaultAnthropicBaseURL)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = strings.TrimSpace(os.Getenv("ANTHROPIC_API_KEY"))
	}
	if key == "" {
		return nil, &config.ConfigError{Key: "extraction.api_key", Value: `""`,
			Reason: "the anthropic provider needs an API key: set extraction.api_key or ANTHROPIC_API_KEY"}
	}
	c := newClient(ProviderAnthropic, resolve(cfg, DefaultAnthropicModel), base)
	c.Header.Set("x-api-key", key)
	c.Header.Set("anthropic-version", AnthropicVersion)
	c.Secret = key
	return &Anthropic{c: c}, nil
}

// Name returns "anthropic/<model>".
func (a *Anthropic) Name() string { return ProviderAnthropic + "/" + a.c.model }

type anthropicRequest struct {
	Model     string        `json:"model"`
	MaxTokens int           `json:"max_tokens"`
	Messages  []chatMessage `json:"messages"`
}

type anthropicResponse struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

// Generate sends one message and returns the first text block.
func (a *Anthropic) Generate(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	out, _, err := a.GenerateUsage(ctx, prompt, opts)
	return out, err
}

// GenerateUsage is Generate with the call's tokens (usage.input_tokens,
// usage.output_tokens).
func (a *Anthropic) GenerateUsage(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, Usage, error) {
	timeout, maxTokens := a.c.call(opts)
	req := anthropicRequest{Model: a.c.model, MaxTokens: maxTokens, Messages: []chatMessage{{Role: "user", Content: prompt}}}
	var resp anthropicResponse
	if err := a.c.post(ctx, timeout, "/v1/messages", req, &resp); err != nil {
		return "", Usage{}, err
	}
	for _, b := range resp.Content {
		if b.Type == "text" || b.Type == "" {
			return b.Text, usageOf(prompt, b.Text, resp.Usage.InputTokens, resp.Usage.OutputTokens), nil
		}
	}
	return "", Usage{}, a.c.Fail(a.c.Endpoint("/v1/messages"), 200, "answer has no text content block", nil)
}
