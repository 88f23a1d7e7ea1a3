package llm

import (
	"context"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/config"
)

// OpenAI generates with any server speaking the OpenAI chat completions
// API (OpenAI, llama.cpp server, LM Studio, vLLM): POST
// {base}/chat/completions with {"model", "messages", "max_tokens",
// "response_format": {"type": "json_object"} (JSON calls only)}, answered
// by choices[0].message.content. The key (config, else OPENAI_API_KEY) is
// sent as a Bearer token when set; it is required only for api.openai.com.
type OpenAI struct{ c *client }

// NewOpenAI returns an OpenAI-compatible provider (default base URL
// https://api.openai.com/v1). The model defaults to gpt-4o-mini for
// api.openai.com; for other servers an empty model is left out of the
// request, which llama.cpp and LM Studio accept (they use the loaded
// model).
func NewOpenAI(cfg Config) (*OpenAI, error) {
	base, err := parseBaseURL("extraction.base_url", cfg.BaseURL, DefaultOpenAIBaseURL)
	if err != nil {
		return nil, err
	}
	official := strings.EqualFold(base.Hostname(), openAIHost)
	def := ""
	if official {
		def = DefaultOpenAIModel
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
	}
	if key == "" && official {
		return nil, &config.ConfigError{Key: "extraction.api_key", Value: `""`,
			Reason: "api.openai.com needs an API key: set extraction.api_key or OPENAI_API_KEY"}
	}
	c := newClient(ProviderOpenAI, resolve(cfg, def), base)
	if key != "" {
		c.Header.Set("Authorization", "Bearer "+key)
		c.Secret = key
	}
	return &OpenAI{c: c}, nil
}

// Name returns "openai/<model>" (or "openai/<host>" without a model).
func (o *OpenAI) Name() string {
	if o.c.model == "" {
		return ProviderOpenAI + "/" + o.c.Base.Host
	}
	return ProviderOpenAI + "/" + o.c.model
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatRequest struct {
	Model          string          `json:"model,omitempty"`
	Messages       []chatMessage   `json:"messages"`
	MaxTokens      int             `json:"max_tokens"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// Generate sends one chat completion with the prompt as the user message.
func (o *OpenAI) Generate(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	out, _, err := o.GenerateUsage(ctx, prompt, opts)
	return out, err
}

// GenerateUsage is Generate with the call's tokens (usage.prompt_tokens,
// usage.completion_tokens).
func (o *OpenAI) GenerateUsage(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, Usage, error) {
	timeout, maxTokens := o.c.call(opts)
	req := chatRequest{Model: o.c.model, Messages: []chatMessage{{Role: "user", Content: prompt}}, MaxTokens: maxTokens}
	if opts.JSON {
		req.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	var resp chatResponse
	if err := o.c.post(ctx, timeout, "/chat/completions", req, &resp); err != nil {
		return "", Usage{}, err
	}
	u := o.c.Endpoint("/chat/completions")
	if len(resp.Choices) == 0 {
		return "", Usage{}, o.c.Fail(u, 200, "answer has no choices", nil)
	}
	m := resp.Choices[0].Message
	if m.Content == nil {
		msg := "answer has no message content"
		if m.Refusal != "" {
			msg += " (refusal: " + m.Refusal + ")"
		}
		return "", Usage{}, o.c.Fail(u, 200, msg, nil)
	}
	return *m.Content, usageOf(prompt, *m.Content, resp.Usage.PromptTokens, resp.Usage.CompletionTokens), nil
}
