// Package rerank holds the reranking models recall can hand its best
// candidates to (reranker.enabled): a /rerank endpoint in the form
// Jina, Cohere, llama.cpp's server, vLLM and text-embeddings-inference
// speak, and an LLM asked to score each candidate when no reranking model
// runs. core calls them through core.Reranker, never inside a write
// transaction; on any error recall keeps its own order.
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/workers/llm"
)

// maxAnswerBytes bounds what is read of a reranker's answer.
const maxAnswerBytes = 1 << 20

// New builds the reranker cfg.Reranker names, or nil when it is off.
// Nothing is contacted here; a setting that cannot work is an error naming
// its key.
func New(cfg config.Config) (core.Reranker, error) {
	rc := cfg.Reranker
	if !rc.Enabled {
		return nil, nil
	}
	switch rc.Provider {
	case "http", "":
		if strings.TrimSpace(rc.URL) == "" {
			return nil, &config.ConfigError{Key: "reranker.url", Reason: "is required with reranker.provider = \"http\" (e.g. http://127.0.0.1:8012/v1/rerank)"}
		}
		u, err := url.Parse(rc.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, &config.ConfigError{Key: "reranker.url", Value: rc.URL, Reason: "want an http:// or https:// URL"}
		}
		key := rc.APIKey
		if key == "" {
			key = os.Getenv("CAIRN_RERANKER_KEY")
		}
		return &HTTP{url: u.String(), model: rc.Model, key: key, client: &http.Client{}}, nil
	case "llm":
		p := cfg.PipelineV2
		m, err := llm.New(p.Provider, llm.Config{Provider: p.Provider, Model: p.Model, BaseURL: p.BaseURL, APIKey: p.APIKey, Timeout: rc.Timeout.D()})
		if err != nil {
			return nil, err
		}
		if _, lexical := m.(extract.LexicalDecider); lexical {
			return nil, &config.ConfigError{Key: "reranker.provider", Value: `"llm"`,
				Reason: "needs a model provider (pipeline_v2.provider: ollama, openai, anthropic or claude-code), not the built-in heuristic"}
		}
		return &LLM{m: m}, nil
	}
	return nil, &config.ConfigError{Key: "reranker.provider", Value: strconv.Quote(rc.Provider), Reason: "want http or llm"}
}

// HTTP is a /rerank endpoint.
type HTTP struct {
	url, model, key string
	client          *http.Client
}

// NewHTTP returns a reranker calling the endpoint at url.
func NewHTTP(url, model, key string) *HTTP {
	return &HTTP{url: url, model: model, key: key, client: &http.Client{}}
}

// Name is "http/<model>" (or the endpoint's host without a model).
func (h *HTTP) Name() string {
	if h.model != "" {
		return "http/" + h.model
	}
	if u, err := url.Parse(h.url); err == nil {
		return "http/" + u.Host
	}
	return "http"
}

type rerankRequest struct {
	Model           string   `json:"model,omitempty"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

// rerankResult is one scored document: Jina, Cohere, llama.cpp and vLLM
// call the score relevance_score, text-embeddings-inference score.
type rerankResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// Rerank scores docs against query: one score per document, in order.
func (h *HTTP) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	body, err := json.Marshal(rerankRequest{Model: h.model, Query: query, Documents: docs, TopN: len(docs)})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reranker %s: %w", h.url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reranker %s: read: %w", h.url, err)
	}
	if len(raw) > maxAnswerBytes {
		return nil, fmt.Errorf("reranker %s: answer over %d bytes", h.url, maxAnswerBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reranker %s: HTTP %d: %s", h.url, resp.StatusCode, snippet(raw))
	}
	return parseScores(raw, len(docs))
}

// parseScores reads {"results": [...]}, {"data": [...]} or a bare array
// of {index, relevance_score|score}. Every document must get exactly one
// finite score.
func parseScores(raw []byte, n int) ([]float64, error) {
	var results []rerankResult
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &results); err != nil {
			return nil, fmt.Errorf("reranker answer: %w", err)
		}
	} else {
		var env struct {
			Results []rerankResult `json:"results"`
			Data    []rerankResult `json:"data"`
		}
		if err := json.Unmarshal(trimmed, &env); err != nil {
			return nil, fmt.Errorf("reranker answer: %w", err)
		}
		results = env.Results
		if results == nil {
			results = env.Data
		}
	}
	scores := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range results {
		if r.Index == nil || *r.Index < 0 || *r.Index >= n {
			return nil, errors.New("reranker answer: a result without a valid index")
		}
		s := r.RelevanceScore
		if s == nil {
			s = r.Score
		}
		if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
			return nil, fmt.Errorf("reranker answer: no score for document %d", *r.Index)
		}
		if seen[*r.Index] {
			return nil, fmt.Errorf("reranker answer: document %d scored twice", *r.Index)
		}
		seen[*r.Index] = true
		scores[*r.Index] = *s
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("reranker answer: document %d not scored (%d of %d)", i, len(results), n)
		}
	}
	return scores, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// LLM asks a language model to score each candidate from 0 to 10.
type LLM struct{ m extract.LLM }

// NewLLM returns a reranker that prompts m.
func NewLLM(m extract.LLM) *LLM { return &LLM{m: m} }

// Name is "llm/<provider/model>".
func (l *LLM) Name() string { return "llm/" + l.m.Name() }

// llmDocChars bounds each passage in the prompt.
const llmDocChars = 600

// Rerank scores docs against query with one prompt.
func (l *LLM) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	var b strings.Builder
	b.WriteString("Rate how well each passage answers the query, from 0 (unrelated) to 10 (answers it).\n")
	b.WriteString("Answer with JSON only: {\"scores\": [one number per passage, in order]}.\n\n")
	fmt.Fprintf(&b, "Query: %s\n\n", oneLine(query, 500))
	for i, d := range docs {
		fmt.Fprintf(&b, "[%d] %s\n", i, oneLine(d, llmDocChars))
	}
	out, err := l.m.Generate(ctx, b.String(), extract.GenerateOptions{JSON: true, MaxTokens: 16 + 6*len(docs)})
	if err != nil {
		return nil, err
	}
	return parseLLMScores(out, len(docs))
}

var jsonArray = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\[\]]*\]`) })

// parseLLMScores reads {"scores": [...]} or the first [...] of numbers in
// a model's answer.
func parseLLMScores(out string, n int) ([]float64, error) {
	var obj struct {
		Scores []float64 `json:"scores"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &obj); err == nil && len(obj.Scores) > 0 {
		return checkCount(obj.Scores, n)
	}
	m := jsonArray().FindString(out)
	if m == "" {
		return nil, fmt.Errorf("reranker answer: no scores in %q", snippet([]byte(out)))
	}
	var arr []float64
	if err := json.Unmarshal([]byte(m), &arr); err != nil {
		return nil, fmt.Errorf("reranker answer: %w", err)
	}
	return checkCount(arr, n)
}

func checkCount(s []float64, n int) ([]float64, error) {
	if len(s) != n {
		return nil, fmt.Errorf("reranker answer: %d scores for %d passages", len(s), n)
	}
	for i, x := range s {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("reranker answer: score %d is not a number", i)
		}
	}
	return s, nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
