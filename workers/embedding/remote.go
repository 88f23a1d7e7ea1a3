package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/cairnmem/cairn/workers/internal/provider"
)

// Error is returned when a provider call fails; it names the provider, the
// endpoint and what went wrong, never the API key.
type Error = provider.Error

// remote is the HTTP plumbing shared by Ollama and OpenAI.
type remote struct {
	common
	provider string
	base     *url.URL
	client   *http.Client
	header   http.Header // added to every request (Authorization)
	secret   string      // redacted from server messages
	maxBody  int64

	learned atomic.Int64 // vector length seen in the first good answer
}

func newRemote(provider string, c common, base *url.URL) *remote {
	return &remote{
		common:   c,
		provider: provider,
		base:     base,
		client:   &http.Client{},
		header:   http.Header{},
		maxBody:  MaxResponseBytes,
	}
}

// dims is what Dimensions reports: the configured length, else the learned
// one, else 0.
func (r *remote) dims() int {
	if r.dimensions > 0 {
		return r.dimensions
	}
	return int(r.learned.Load())
}

// endpoint returns the URL of path under the base URL.
func (r *remote) endpoint(path string) *url.URL { return r.base.JoinPath(path) }

func (r *remote) fail(u *url.URL, status int, msg string, err error) *Error {
	return &Error{Provider: r.provider, URL: u.Redacted(), StatusCode: status, Msg: msg, Err: err}
}

// batches calls embed for each run of at most batchSize texts, in order,
// checking ctx between runs, and concatenates the results.
func (r *remote) batches(ctx context.Context, texts []string, embed func(ctx context.Context, batch []string, offset int) ([][]float32, error)) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += r.batchSize {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s embedding: stopped after %d of %d texts: %w", r.provider, lo, len(texts), err)
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

// do sends one request (with body marshalled as JSON when non-nil) and
// returns the status and the body, read up to maxBody. Transport failures,
// time-outs, cancellation and oversized answers are returned as *Error;
// non-2xx statuses are not errors here.
func (r *remote) do(ctx context.Context, method string, u *url.URL, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, r.fail(u, 0, "encoding the request", err)
		}
		rd = bytes.NewReader(b)
	}
	reqCtx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), rd)
	if err != nil {
		return 0, nil, r.fail(u, 0, "building the request", err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cairn")

	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, r.transportError(ctx, reqCtx, u, 0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.maxBody+1))
	if err != nil {
		return resp.StatusCode, nil, r.transportError(ctx, reqCtx, u, resp.StatusCode, err)
	}
	if int64(len(data)) > r.maxBody {
		return resp.StatusCode, nil, r.fail(u, resp.StatusCode, fmt.Sprintf("answer larger than %d bytes (HTTP %d)", r.maxBody, resp.StatusCode), nil)
	}
	return resp.StatusCode, data, nil
}

// transportError explains a failed request or body read.
func (r *remote) transportError(ctx, reqCtx context.Context, u *url.URL, status int, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL
	}
	switch {
	case ctx.Err() != nil:
		return r.fail(u, status, "request abandoned", ctx.Err())
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		return r.fail(u, status, fmt.Sprintf("no answer within %s (embedding.timeout)", r.timeout), context.DeadlineExceeded)
	}
	var op *net.OpError
	if status == 0 && errors.As(err, &op) && op.Op == "dial" {
		return r.fail(u, 0, "not reachable", err)
	}
	if status == 0 {
		return r.fail(u, 0, "request failed", err)
	}
	return r.fail(u, status, fmt.Sprintf("reading the answer (HTTP %d)", status), err)
}

// statusError describes a non-2xx answer using the server's own message.
func (r *remote) statusError(u *url.URL, status int, body []byte, hint string) *Error {
	msg := fmt.Sprintf("HTTP %d", status)
	if t := http.StatusText(status); t != "" {
		msg += " " + t
	}
	msg += ": " + r.serverMessage(body)
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return r.fail(u, status, msg, nil)
}

// serverMessage extracts the error message from an error body.
func (r *remote) serverMessage(body []byte) string { return provider.ServerMessage(body, r.secret) }

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
	return r.fail(u, status, msg, err)
}

// vectors checks that raw holds one finite vector per text of the batch, each
// of the expected length, and converts them to float32. offset is the index
// of the batch's first text among all texts, for messages.
func (r *remote) vectors(u *url.URL, raw [][]float64, n, offset int) ([][]float32, error) {
	if len(raw) != n {
		return nil, r.fail(u, http.StatusOK, fmt.Sprintf("answer has %d vectors for %d texts", len(raw), n), nil)
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
			return nil, r.fail(u, http.StatusOK, fmt.Sprintf("empty vector for text %d", offset+i), nil)
		}
		if len(v) != want {
			return nil, r.fail(u, http.StatusOK, fmt.Sprintf("vector for text %d has %d dimensions, expected %d (from %s)", offset+i, len(v), want, from), nil)
		}
		f := make([]float32, len(v))
		for j, x := range v {
			y := float32(x)
			if math.IsNaN(float64(y)) || math.IsInf(float64(y), 0) {
				what := fmt.Sprint(x)
				if !math.IsNaN(x) && !math.IsInf(x, 0) {
					what += ", too large for float32"
				}
				return nil, r.fail(u, http.StatusOK, fmt.Sprintf("vector for text %d has a non-finite value (%s) at position %d", offset+i, what, j), nil)
			}
			f[j] = y
		}
		out[i] = f
	}
	if r.dimensions == 0 && !r.learned.CompareAndSwap(0, int64(want)) {
		if got := int(r.learned.Load()); got != want {
			return nil, r.fail(u, http.StatusOK, fmt.Sprintf("vectors have %d dimensions, expected %d (from earlier answers)", want, got), nil)
		}
	}
	return out, nil
}

// healthText is embedded by health checks that need a real embed.
const healthText = "cairn health check"
