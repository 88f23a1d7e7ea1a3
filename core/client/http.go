package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/vectors"
	"github.com/cairnmem/cairn/core/wire"
)

// DefaultMaxResponse is how much of one answer an HTTP client reads
// unless Options.MaxResponse says otherwise.
const DefaultMaxResponse = 64 << 20

// Options configure an HTTP client.
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
	// PID is the process that holds the database, when known (its lock
	// file says): a call that gets no answer then says which cairn holds
	// the database and does not answer, and Describe names it.
	PID int
}

// Remote is a Client over the API of one cairn. It is safe for concurrent
// use.
type Remote struct {
	addr string // host:port
	base string // http://host:port
	opts Options
	hc   *http.Client
}

// HTTP returns a Client for the API at addr (host:port).
func HTTP(addr string, opts Options) *Remote {
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = DefaultMaxResponse
	}
	// Agents call with several requests at once (hooks, MCP): keep enough
	// idle connections to the one host for them (the default keeps 2).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	return &Remote{addr: addr, base: "http://" + addr, opts: opts, hc: &http.Client{Transport: tr}}
}

// Addr implements Client: the host:port the client talks to.
func (c *Remote) Addr() string { return c.addr }

// BaseURL is the API's root, http://host:port.
func (c *Remote) BaseURL() string { return c.base }

// Describe implements Client.
func (c *Remote) Describe() string {
	if c.opts.PID > 0 {
		return fmt.Sprintf("the running cairn (pid %d) at %s", c.opts.PID, c.base)
	}
	return "the running cairn at " + c.base
}

// Close implements Client; a Remote holds nothing to release.
func (c *Remote) Close() error { return nil }

// explain names the process that holds the database when its API does not
// answer (Options.PID).
func (c *Remote) explain(err error) error {
	var ue *UnreachableError
	if c.opts.PID > 0 && errors.As(err, &ue) {
		return fmt.Errorf("cairn (pid %d) holds the database but its API at %s does not answer: %w", c.opts.PID, ue.URL, ue.Err)
	}
	return err
}

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
func (c *Remote) send(ctx context.Context, r request) (resp *http.Response, cancel context.CancelFunc, err error) {
	cancel = func() {}
	if c.opts.Timeout > 0 && !r.stream {
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
	}
	for attempt := 0; ; attempt++ {
		resp, err = c.sendOnce(ctx, r)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		wait, again := overloaded(resp, r, attempt)
		if !again {
			break
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			cancel()
			return nil, nil, ctx.Err()
		}
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

// sendOnce sends r once (its body from the start).
func (c *Remote) sendOnce(ctx context.Context, r request) (*http.Response, error) {
	if sk, ok := r.body.(io.Seeker); ok {
		if _, err := sk.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, r.body)
	if err != nil {
		return nil, err
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
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.explain(&UnreachableError{URL: c.base, Err: err})
	}
	return resp, nil
}

// Overload retries: a busy cairn answers 503 with Retry-After before it
// runs the request (admission), so sending it again is safe; the client
// waits as asked (at most overloadMaxWait) up to overloadRetries times
// before it reports the refusal.
const (
	overloadRetries = 3
	overloadMaxWait = 2 * time.Second
)

// overloaded reports whether resp is a busy cairn's refusal worth waiting
// out, and how long to wait: a body that cannot be sent again (not
// seekable) is not retried.
func overloaded(resp *http.Response, r request, attempt int) (time.Duration, bool) {
	if resp.StatusCode != http.StatusServiceUnavailable || attempt >= overloadRetries {
		return 0, false
	}
	if _, ok := r.body.(io.Seeker); r.body != nil && !ok {
		return 0, false
	}
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs < 0 {
		return 0, false // not an admission refusal (a faulted store says no Retry-After)
	}
	return min(time.Duration(secs)*time.Second, overloadMaxWait), true
}

// read reads a body up to MaxResponse bytes; a longer one returns the
// first MaxResponse bytes and an error wrapping ErrTooLarge.
func (c *Remote) read(body io.Reader) ([]byte, error) {
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

// call sends r and decodes the JSON answer into out (nil: the answer is
// read and dropped; *json.RawMessage: kept as sent).
func (c *Remote) call(ctx context.Context, r request, out any) error {
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
func (c *Remote) do(ctx context.Context, method, path string, in, out any) error {
	r, err := jsonRequest(method, path, in)
	if err != nil {
		return err
	}
	return c.call(ctx, r, out)
}

// Health implements Client with GET /health: whether the API answered
// 2xx.
func (c *Remote) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/health", nil, nil)
}

// EmbeddingStatus calls GET /api/embeddings/status.
func (c *Remote) EmbeddingStatus(ctx context.Context) (*vectors.EmbeddingStatus, error) {
	var s vectors.EmbeddingStatus
	if err := c.do(ctx, http.MethodGet, "/api/embeddings/status", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Status implements Client with GET /api/status.
func (c *Remote) Status(ctx context.Context) (*wire.Status, error) {
	var s wire.Status
	if err := c.do(ctx, http.MethodGet, "/api/status", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Hook posts in to a hook endpoint, POST /api/hooks/{event}, and returns
// the answer's fields.
func (c *Remote) Hook(ctx context.Context, event string, in any) (map[string]any, error) {
	var out map[string]any
	if err := c.do(ctx, http.MethodPost, "/api/hooks/"+event, in, &out); err != nil {
		return nil, err
	}
	return out, nil
}
