// Package client is the typed client of cairn's HTTP API. The CLI, the
// Claude Code hook shim and the terminal UI in client mode reach a running
// cairn through it: one place builds requests (token, actor headers,
// deadlines), bounds what is read back and turns the API's error bodies
// into *core.Error.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/vectors"
	"github.com/cairnmem/cairn/storage"
)

// TokenEnv is the environment variable clients (the CLI, the hook adapter,
// the TUI in client mode) read a token from, for a cairn in team or hybrid
// mode.
const TokenEnv = "CAIRN_TOKEN"

// AuthorizeRequest adds the token from CAIRN_TOKEN, if set, to an outgoing
// request to a cairn API.
func AuthorizeRequest(req *http.Request) {
	if tok := strings.TrimSpace(os.Getenv(TokenEnv)); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
}

// NewHTTPClient returns an *http.Client whose requests carry the token
// from CAIRN_TOKEN, for code that speaks another protocol to a cairn (the
// MCP proxy). timeout bounds each request; 0 means none.
func NewHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: tokenTransport{http.DefaultTransport}}
}

// tokenTransport adds CAIRN_TOKEN to every request it sends.
type tokenTransport struct{ next http.RoundTripper }

// RoundTrip sends a copy of req with the token added.
func (t tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	AuthorizeRequest(req)
	return t.next.RoundTrip(req)
}

// DefaultMaxResponse is how much of one answer a Client reads unless
// Options.MaxResponse says otherwise.
const DefaultMaxResponse = 64 << 20

// Options configure a Client.
type Options struct {
	// Actor is who the API records writes as (the X-Cairn-Actor and
	// X-Cairn-Actor-Type headers); a token's subject takes precedence on
	// the server.
	Actor core.Actor
	// Timeout bounds each call, from sending the request to reading the
	// whole answer; 0 leaves only the caller's context. Export's stream is
	// never cut by it.
	Timeout time.Duration
	// MaxResponse bounds the bytes read of one answer; 0 means
	// DefaultMaxResponse.
	MaxResponse int64
}

// Client calls the API of one cairn. It is safe for concurrent use.
type Client struct {
	addr string // host:port
	base string // http://host:port
	opts Options
	hc   *http.Client
}

// New returns a Client for the API at addr (host:port).
func New(addr string, opts Options) *Client {
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = DefaultMaxResponse
	}
	// Agents call with several requests at once (hooks, MCP): keep enough
	// idle connections to the one host for them (the default keeps 2).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	return &Client{addr: addr, base: "http://" + addr, opts: opts, hc: &http.Client{Transport: tr}}
}

// Addr is the host:port the client talks to.
func (c *Client) Addr() string { return c.addr }

// BaseURL is the API's root, http://host:port.
func (c *Client) BaseURL() string { return c.base }

// UnreachableError is a call that got no answer: nothing listens, the
// connection broke, or the deadline passed before the response headers.
type UnreachableError struct {
	URL string // the API's root
	Err error  // what the transport said
}

// Error says which cairn did not answer and why.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cairn at %s does not answer: %v", e.URL, e.Err)
}

// Unwrap returns the transport's error, so errors.Is(err,
// context.DeadlineExceeded) tells a slow answer from a refused one.
func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrTooLarge is returned (wrapped) when an answer is longer than
// Options.MaxResponse.
var ErrTooLarge = errors.New("answer too large")

// request is one call: method, path (with its query) and a body.
type request struct {
	method, path string
	contentType  string
	body         io.Reader
	stream       bool // no Timeout: the caller reads the body as it comes
}

// jsonRequest encodes in, if not nil, as the JSON body of a request.
func jsonRequest(method, path string, in any) (request, error) {
	r := request{method: method, path: path}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return r, err
		}
		r.body, r.contentType = bytes.NewReader(b), "application/json"
	}
	return r, nil
}

// send sends r and returns the response for a 2xx status. Any other
// status is read (bounded) and returned as *core.Error. cancel must be
// called once the body has been read.
func (c *Client) send(ctx context.Context, r request) (resp *http.Response, cancel context.CancelFunc, err error) {
	cancel = func() {}
	if c.opts.Timeout > 0 && !r.stream {
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, r.body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	AuthorizeRequest(req)
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if c.opts.Actor.Name != "" {
		req.Header.Set("X-Cairn-Actor", c.opts.Actor.Name)
	}
	if c.opts.Actor.Type != "" {
		req.Header.Set("X-Cairn-Actor-Type", c.opts.Actor.Type)
	}
	resp, err = c.hc.Do(req)
	if err != nil {
		cancel()
		return nil, nil, &UnreachableError{URL: c.base, Err: err}
	}
	if resp.StatusCode >= 300 {
		defer cancel()
		defer resp.Body.Close()
		data, err := c.read(resp.Body)
		if err != nil && !errors.Is(err, ErrTooLarge) {
			return nil, nil, err
		}
		return nil, nil, decodeError(r.method, r.path, resp, data)
	}
	return resp, cancel, nil
}

// read reads a body up to MaxResponse bytes; a longer one returns the
// first MaxResponse bytes and an error wrapping ErrTooLarge.
func (c *Client) read(body io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, c.opts.MaxResponse+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.opts.MaxResponse {
		return data[:c.opts.MaxResponse], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, c.opts.MaxResponse)
	}
	return data, nil
}

// decodeError turns an error answer into *APIError around a *core.Error: the API's JSON
// {"error", "code", ...} with every field of the body in Extra, or for any
// other body the method, path and status as the message.
func decodeError(method, path string, resp *http.Response, data []byte) error {
	var body map[string]any
	if json.Unmarshal(data, &body) == nil {
		if msg, _ := body["error"].(string); msg != "" {
			code, _ := body["code"].(string)
			return &APIError{Status: resp.StatusCode, Err: &core.Error{Code: code, Message: msg, Extra: body}}
		}
	}
	return &APIError{Status: resp.StatusCode, Err: &core.Error{Message: fmt.Sprintf("%s %s: %s", method, path, resp.Status)}}
}

// APIError is an error answer of the API: the HTTP status and the domain
// error it carried. It unwraps to the *core.Error, so errors.Is and
// errors.As work on the codes as they do in process.
type APIError struct {
	Status int
	Err    *core.Error
}

func (e *APIError) Error() string { return e.Err.Error() }

// Unwrap returns the domain error.
func (e *APIError) Unwrap() error { return e.Err }

// StatusOf returns the HTTP status of an API error answer, 0 for any other
// error (or nil).
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// call sends r and decodes the JSON answer into out (nil: the answer is
// read and dropped; *json.RawMessage: kept as sent).
func (c *Client) call(ctx context.Context, r request, out any) error {
	resp, cancel, err := c.send(ctx, r)
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	data, err := c.read(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = data
		return nil
	}
	return json.Unmarshal(data, out)
}

// do sends in (nil: no body) as JSON and decodes the answer into out.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	r, err := jsonRequest(method, path, in)
	if err != nil {
		return err
	}
	return c.call(ctx, r, out)
}

// Health calls GET /health and reports whether the API answered 2xx.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/health", nil, nil)
}

// Status is the part of GET /api/status clients show.
type Status struct {
	AuthMode string              `json:"authMode"`
	Pipeline PipelineStatus      `json:"pipeline"`
	Memories storage.MemoryStats `json:"memories"`
	// Queue counts jobs by status; nil when the API reports no queue.
	Queue map[string]int `json:"queue"`
	// Counts are the overview's cheap counters.
	Counts StatusCounts `json:"counts"`
}

// StatusCounts are the counters of GET /api/status.
type StatusCounts struct {
	Memories         int64 `json:"memories"`
	Deleted          int64 `json:"deleted"`
	PendingProposals int64 `json:"pendingProposals"`
}

// EmbeddingStatus calls GET /api/embeddings/status.
func (c *Client) EmbeddingStatus(ctx context.Context) (*vectors.EmbeddingStatus, error) {
	var s vectors.EmbeddingStatus
	if err := c.do(ctx, http.MethodGet, "/api/embeddings/status", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// PipelineStatus is the pipeline part of Status.
type PipelineStatus struct {
	Mode string `json:"mode"` // disabled, shadow, controlled-write, frozen
}

// Status calls GET /api/status.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var s Status
	if err := c.do(ctx, http.MethodGet, "/api/status", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Hook posts in to a hook endpoint, POST /api/hooks/{event}, and returns
// the answer's fields.
func (c *Client) Hook(ctx context.Context, event string, in any) (map[string]any, error) {
	var out map[string]any
	if err := c.do(ctx, http.MethodPost, "/api/hooks/"+event, in, &out); err != nil {
		return nil, err
	}
	return out, nil
}
