package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cairnmem/cairn/workers/internal/provider"
)

// client is the HTTP plumbing shared by the ollama, openai and anthropic
// providers.
type client struct {
	settings
	provider string
	base     *url.URL
	http     *http.Client
	header   http.Header // added to every request (keys, versions)
	secret   string      // redacted from server messages
	maxBody  int64
}

func newClient(provider string, s settings, base *url.URL) *client {
	return &client{settings: s, provider: provider, base: base, http: &http.Client{}, header: http.Header{}, maxBody: MaxResponseBytes}
}

func (c *client) endpoint(path string) *url.URL { return c.base.JoinPath(path) }

func (c *client) fail(u *url.URL, status int, msg string, err error) *Error {
	return &Error{Provider: c.provider, URL: u.Redacted(), StatusCode: status, Msg: msg, Err: err}
}

// post sends body as JSON and decodes a 2xx answer into out. Non-2xx
// answers become errors carrying the server's own message.
func (c *client) post(ctx context.Context, timeout time.Duration, path string, body, out any) error {
	u := c.endpoint(path)
	status, data, err := c.do(ctx, timeout, http.MethodPost, u, body)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return c.statusError(u, status, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.fail(u, status, "malformed JSON answer", err)
	}
	return nil
}

// do sends one request (body marshalled as JSON when non-nil) within
// timeout and returns the status and body, read up to maxBody.
func (c *client) do(ctx context.Context, timeout time.Duration, method string, u *url.URL, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, c.fail(u, 0, "encoding the request", err)
		}
		rd = bytes.NewReader(b)
	}
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), rd)
	if err != nil {
		return 0, nil, c.fail(u, 0, "building the request", err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cairn")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, c.transportError(ctx, reqCtx, timeout, u, 0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return resp.StatusCode, nil, c.transportError(ctx, reqCtx, timeout, u, resp.StatusCode, err)
	}
	if int64(len(data)) > c.maxBody {
		return resp.StatusCode, nil, c.fail(u, resp.StatusCode, fmt.Sprintf("answer larger than %d bytes (HTTP %d)", c.maxBody, resp.StatusCode), nil)
	}
	return resp.StatusCode, data, nil
}

func (c *client) transportError(ctx, reqCtx context.Context, timeout time.Duration, u *url.URL, status int, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case ctx.Err() != nil:
		return c.fail(u, status, "request abandoned", ctx.Err())
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		return c.fail(u, status, fmt.Sprintf("no answer within %s (extraction.timeout)", timeout), context.DeadlineExceeded)
	}
	var op *net.OpError
	if status == 0 && errors.As(err, &op) && op.Op == "dial" {
		return c.fail(u, 0, "not reachable", err)
	}
	if status == 0 {
		return c.fail(u, 0, "request failed", err)
	}
	return c.fail(u, status, fmt.Sprintf("reading the answer (HTTP %d)", status), err)
}

func (c *client) statusError(u *url.URL, status int, body []byte) *Error {
	msg := fmt.Sprintf("HTTP %d", status)
	if t := http.StatusText(status); t != "" {
		msg += " " + t
	}
	msg += ": " + c.serverMessage(body)
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (check the API key)"
	case http.StatusNotFound:
		msg += " (check base_url and model)"
	}
	return c.fail(u, status, msg, nil)
}

// serverMessage extracts the message of an error body.
func (c *client) serverMessage(body []byte) string { return provider.ServerMessage(body, c.secret) }
