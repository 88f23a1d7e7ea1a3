package embedding

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/cairnmem/cairn/core/config"
)

// Ollama embeds with an Ollama server: POST {base}/api/embed with
// {"model", "input": [...]}, answered by {"embeddings": [[...], ...]}.
// Servers older than /api/embed (which answer it with a plain 404) are
// served through the legacy POST {base}/api/embeddings, one text per call.
// Ollama is safe for concurrent use.
type Ollama struct {
	r      *remote
	legacy atomic.Bool // /api/embed is missing; use /api/embeddings
}

// NewOllama returns an Ollama provider (defaults: model nomic-embed-text,
// base URL http://127.0.0.1:11434). Nothing is contacted here.
func NewOllama(cfg config.EmbeddingConfig) (*Ollama, error) {
	c, err := commonSettings(cfg, DefaultOllamaModel)
	if err != nil {
		return nil, err
	}
	base, err := parseBaseURL(cfg.BaseURL, DefaultOllamaBaseURL)
	if err != nil {
		return nil, err
	}
	return &Ollama{r: newRemote("ollama", c, base)}, nil
}

// Model returns the configured model name.
func (o *Ollama) Model() string { return o.r.model }

// Dimensions returns embedding.dimensions when set; otherwise 0 until the
// first good answer, and that answer's vector length after.
func (o *Ollama) Dimensions() int { return o.r.dims() }

// BaseURL returns the server's base URL (password redacted).
func (o *Ollama) BaseURL() string { return o.r.Base.Redacted() }

type ollamaEmbedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type ollamaEmbedResponse struct {
	Model      string      `json:"model"`
	Embeddings [][]float64 `json:"embeddings"`
}

type ollamaLegacyRequest struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
}

type ollamaLegacyResponse struct {
	Embedding []float64 `json:"embedding"`
}

// Embed returns one vector per text, in order, sending at most batch_size
// texts per request.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	return o.r.batches(ctx, texts, o.embedBatch)
}

func (o *Ollama) embedBatch(ctx context.Context, batch []string, offset int) ([][]float32, error) {
	if o.legacy.Load() {
		return o.embedLegacy(ctx, batch, offset)
	}
	u := o.r.Endpoint("/api/embed")
	status, body, err := o.r.do(ctx, http.MethodPost, u, ollamaEmbedRequest{Model: o.r.model, Input: batch})
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound && errorMessage(body) == "" {
		// A plain "404 page not found": an Ollama from before /api/embed
		// (a missing model is a 404 with a JSON error instead).
		o.legacy.Store(true)
		return o.embedLegacy(ctx, batch, offset)
	}
	if status < 200 || status > 299 {
		return nil, o.r.StatusError(u, status, body, o.hint(status, body))
	}
	var resp ollamaEmbedResponse
	if err := o.r.decode(u, status, body, &resp); err != nil {
		return nil, err
	}
	return o.r.vectors(u, resp.Embeddings, len(batch), offset)
}

// embedLegacy uses POST /api/embeddings, one text per request.
func (o *Ollama) embedLegacy(ctx context.Context, batch []string, offset int) ([][]float32, error) {
	u := o.r.Endpoint("/api/embeddings")
	out := make([][]float32, 0, len(batch))
	for i, text := range batch {
		if i > 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("ollama embedding: stopped after %d texts: %w", offset+i, err)
			}
		}
		status, body, err := o.r.do(ctx, http.MethodPost, u, ollamaLegacyRequest{Model: o.r.model, Prompt: text})
		if err != nil {
			return nil, err
		}
		if status < 200 || status > 299 {
			return nil, o.r.StatusError(u, status, body, o.hint(status, body))
		}
		var resp ollamaLegacyResponse
		if err := o.r.decode(u, status, body, &resp); err != nil {
			return nil, err
		}
		vecs, err := o.r.vectors(u, [][]float64{resp.Embedding}, 1, offset+i)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs[0])
	}
	return out, nil
}

func (o *Ollama) hint(status int, body []byte) string {
	if status != http.StatusNotFound {
		return ""
	}
	if errorMessage(body) == "" {
		return "is embedding.base_url an Ollama server?"
	}
	return fmt.Sprintf("is the model pulled? run: ollama pull %s", o.r.model)
}

type ollamaTags struct {
	Models []struct {
		Name  string `json:"name"`
		Model string `json:"model"`
	} `json:"models"`
}

// Check asks GET /api/tags whether the server is up and has the model. A
// server without /api/tags is checked by embedding one short text.
func (o *Ollama) Check(ctx context.Context) error {
	u := o.r.Endpoint("/api/tags")
	status, body, err := o.r.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if status == http.StatusNotFound {
		_, err := o.Embed(ctx, []string{healthText})
		return err
	}
	if status < 200 || status > 299 {
		return o.r.StatusError(u, status, body, "")
	}
	var tags ollamaTags
	if err := json.Unmarshal(body, &tags); err != nil {
		return o.r.Fail(u, status, "malformed JSON answer", err)
	}
	want := o.r.model
	for _, m := range tags.Models {
		for _, name := range []string{m.Name, m.Model} {
			if modelMatches(name, want) {
				return nil
			}
		}
	}
	return o.r.Fail(u, status, fmt.Sprintf("model %q is not available on this server (run: ollama pull %s)", want, want), nil)
}

// modelMatches reports whether an Ollama model name (always with a tag, such
// as "nomic-embed-text:latest") names the configured model, which may omit
// the ":latest" tag.
func modelMatches(name, want string) bool {
	if name == "" {
		return false
	}
	if strings.EqualFold(name, want) {
		return true
	}
	return !strings.Contains(lastSegment(want), ":") && strings.EqualFold(name, want+":latest")
}

func lastSegment(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}
