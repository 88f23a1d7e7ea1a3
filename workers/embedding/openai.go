package embedding

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core/config"
)

// OpenAI embeds with a server speaking the OpenAI embeddings API: POST
// {base}/embeddings with {"model", "input": [...]} and, when a key is set,
// "Authorization: Bearer KEY"; answered by {"data": [{"index", "embedding"},
// ...]}, which may come in any order. OpenAI itself, llama.cpp server, LM
// Studio, vLLM and Ollama's /v1 all speak it. OpenAI is safe for concurrent
// use.
type OpenAI struct {
	r *remote
}

// NewOpenAI returns an OpenAI-compatible provider (defaults: model
// text-embedding-3-small, base URL https://api.openai.com/v1, key from
// embedding.api_key or OPENAI_API_KEY). A key is required only when the base
// URL's host is api.openai.com. Nothing is contacted here.
func NewOpenAI(cfg config.EmbeddingConfig) (*OpenAI, error) {
	c, err := commonSettings(cfg, DefaultOpenAIModel)
	if err != nil {
		return nil, err
	}
	base, err := parseBaseURL(cfg.BaseURL, DefaultOpenAIBaseURL)
	if err != nil {
		return nil, err
	}
	key := openAIKey(cfg)
	if key == "" && strings.EqualFold(base.Hostname(), openAIHost) {
		return nil, &config.ConfigError{Key: "embedding.api_key",
			Reason: "an API key is required for " + openAIHost + ": set embedding.api_key or the OPENAI_API_KEY environment variable " +
				"(local OpenAI-compatible servers such as llama.cpp, LM Studio or vLLM need no key: set embedding.base_url to them)"}
	}
	r := newRemote("openai", c, base)
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
		r.Secret = key
	}
	return &OpenAI{r: r}, nil
}

// Model returns the configured model name.
func (o *OpenAI) Model() string { return o.r.model }

// Dimensions returns embedding.dimensions when set; otherwise 0 until the
// first good answer, and that answer's vector length after.
func (o *OpenAI) Dimensions() int { return o.r.dims() }

// BaseURL returns the server's base URL (password redacted).
func (o *OpenAI) BaseURL() string { return o.r.Base.Redacted() }

type openAIRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIResponse struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string    `json:"object"`
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// Embed returns one vector per text, in order, sending at most batch_size
// texts per request.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	return o.r.batches(ctx, texts, o.embedBatch)
}

func (o *OpenAI) embedBatch(ctx context.Context, batch []string, offset int) ([][]float32, error) {
	u := o.r.Endpoint("/embeddings")
	status, body, err := o.r.do(ctx, http.MethodPost, u, openAIRequest{Model: o.r.model, Input: batch})
	if err != nil {
		return nil, err
	}
	if status < 200 || status > 299 {
		return nil, o.r.StatusError(u, status, body, o.hint(status))
	}
	var resp openAIResponse
	if err := o.r.decode(u, status, body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != len(batch) {
		return nil, o.r.Fail(u, status, fmt.Sprintf("answer has %d vectors for %d texts", len(resp.Data), len(batch)), nil)
	}
	// Put the vectors in input order by their index; an answer without any
	// index is taken in the order given.
	raw := make([][]float64, len(batch))
	noIndex := 0
	for _, d := range resp.Data {
		if d.Index == nil {
			noIndex++
		}
	}
	switch noIndex {
	case len(resp.Data):
		for i, d := range resp.Data {
			raw[i] = d.Embedding
		}
	case 0:
		seen := make([]bool, len(batch))
		for _, d := range resp.Data {
			i := *d.Index
			if i < 0 || i >= len(batch) {
				return nil, o.r.Fail(u, status, fmt.Sprintf("answer has index %d for %d texts", i, len(batch)), nil)
			}
			if seen[i] {
				return nil, o.r.Fail(u, status, fmt.Sprintf("answer has index %d twice", i), nil)
			}
			seen[i] = true
			raw[i] = d.Embedding
		}
	default:
		return nil, o.r.Fail(u, status, fmt.Sprintf("%d of %d vectors in the answer have no index", noIndex, len(resp.Data)), nil)
	}
	return o.r.vectors(u, raw, len(batch), offset)
}

func (o *OpenAI) hint(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "check embedding.api_key or OPENAI_API_KEY"
	case http.StatusNotFound:
		return "check embedding.base_url and embedding.model; OpenAI-compatible servers usually serve under /v1"
	case http.StatusTooManyRequests:
		return "rate limited or out of quota"
	}
	return ""
}

// Check embeds one short text: the only call every OpenAI-compatible server
// has that proves both the key and the model work.
func (o *OpenAI) Check(ctx context.Context) error {
	_, err := o.Embed(ctx, []string{healthText})
	return err
}
