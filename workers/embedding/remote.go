package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/cairnmem/cairn/workers/internal/provider"
)

// Error is returned when a provider call fails; it names the provider, the
// endpoint and what went wrong, never the API key.
type Error = provider.Error

// remote is the HTTP plumbing shared by Ollama and OpenAI:
// provider.Client with the embedding settings.
type remote struct {
	common
	provider.Client

	learned atomic.Int64 // vector length seen in the first good answer
}

func newRemote(name string, c common, base *url.URL) *remote {
	return &remote{common: c, Client: provider.NewClient(name, base, MaxResponseBytes, "embedding.timeout")}
}

// dims is what Dimensions reports: the configured length, else the learned
// one, else 0.
func (r *remote) dims() int {
	if r.dimensions > 0 {
		return r.dimensions
	}
	return int(r.learned.Load())
}

// batches calls embed for each run of at most batchSize texts, in order,
// checking ctx between runs, and concatenates the results.
func (r *remote) batches(ctx context.Context, texts []string, embed func(ctx context.Context, batch []string, offset int) ([][]float32, error)) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += r.batchSize {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s embedding: stopped after %d of %d texts: %w", r.Provider, lo, len(texts), err)
		}
		hi := min(lo+r.batchSize, len(texts))
		vecs, err := embed(ctx, texts[lo:hi], lo)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// do is provider.Client.Do within embedding.timeout.
func (r *remote) do(ctx context.Context, method string, u *url.URL, body any) (int, []byte, error) {
	return r.Do(ctx, r.timeout, method, u, body)
}

// errorMessage returns the message of a JSON error body, or "".
func errorMessage(body []byte) string { return provider.ErrorMessage(body) }

// decode parses a 2xx answer.
func (r *remote) decode(u *url.URL, status int, body []byte, v any) error {
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	msg := "malformed JSON answer"
	if bytes.Contains(body, []byte("NaN")) || bytes.Contains(body, []byte("Infinity")) {
		msg = "malformed JSON answer (it contains NaN or Infinity, so the model produced non-finite values)"
	}
	return r.Fail(u, status, msg, err)
}

// vectors checks that raw holds one finite vector per text of the batch, each
// of the expected length, and converts them to float32. offset is the index
// of the batch's first text among all texts, for messages.
func (r *remote) vectors(u *url.URL, raw [][]float64, n, offset int) ([][]float32, error) {
	if len(raw) != n {
		return nil, r.Fail(u, http.StatusOK, fmt.Sprintf("answer has %d vectors for %d texts", len(raw), n), nil)
	}
	if n == 0 {
		return [][]float32{}, nil
	}
	want, from := r.dimensions, "embedding.dimensions"
	if want == 0 {
		want, from = int(r.learned.Load()), "earlier answers"
	}
	if want == 0 {
		want, from = len(raw[0]), "the first vector of this answer"
	}
	out := make([][]float32, n)
	for i, v := range raw {
		if len(v) == 0 {
			return nil, r.Fail(u, http.StatusOK, fmt.Sprintf("empty vector for text %d", offset+i), nil)
		}
		if len(v) != want {
			return nil, r.Fail(u, http.StatusOK, fmt.Sprintf("vector for text %d has %d dimensions, expected %d (from %s)", offset+i, len(v), want, from), nil)
		}
		f := make([]float32, len(v))
		for j, x := range v {
			y := float32(x)
			if math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) {
				what := fmt.Sprint(x)
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					what += ", too large for float32"
				}
				return nil, r.Fail(u, http.StatusOK, fmt.Sprintf("vector for text %d has a non-finite value (%s) at position %d", offset+i, what, j), nil)
			}
			f[j] = y
		}
		out[i] = f
	}
	if r.dimensions == 0 && !r.learned.CompareAndSwap(0, int64(want)) {
		if got := int(r.learned.Load()); got != want {
			return nil, r.Fail(u, http.StatusOK, fmt.Sprintf("vectors have %d dimensions, expected %d (from earlier answers)", want, got), nil)
		}
	}
	return out, nil
}

// healthText is embedded by health checks that need a real embed.
const healthText = "cairn health check"
