package provider

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
)

// Client is the HTTP plumbing every remote provider shares: JSON requests
// under a base URL with fixed headers, a time limit per call, a size limit
// on answers, and failures explained as *Error without the API key.
type Client struct {
	Provider string
	Base     *url.URL
	HTTP     *http.Client
	Header   http.Header // added to every request (keys, versions)
	Secret   string      // redacted from server messages
	MaxBody  int64       // answers longer than this fail
	// TimeoutKey is the configuration key a time-out message names.
	TimeoutKey string
}

// NewClient returns a Client for provider at base.
func NewClient(provider string, base *url.URL, maxBody int64, timeoutKey string) Client {
	return Client{Provider: provider, Base: base, HTTP: &http.Client{}, Header: http.Header{}, MaxBody: maxBody, TimeoutKey: timeoutKey}
}

// Endpoint returns the URL of path under the base URL.
func (c *Client) Endpoint(path string) *url.URL { return c.Base.JoinPath(path) }

// Fail builds the provider's error for a call to u.
func (c *Client) Fail(u *url.URL, status int, msg string, err error) *Error {
	return &Error{Provider: c.Provider, URL: u.Redacted(), StatusCode: status, Msg: msg, Err: err}
}

// Do sends one request (body marshalled as JSON when non-nil) within
// timeout and returns the status and the body, read up to MaxBody.
// Transport failures, time-outs, cancellation and oversized answers are
// returned as *Error; non-2xx statuses are not errors here.
func (c *Client) Do(ctx context.Context, timeout time.Duration, method string, u *url.URL, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, c.Fail(u, 0, "encoding the request", err)
		}
		rd = bytes.NewReader(b)
	}
	reqCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), rd)
	if err != nil {
		return 0, nil, c.Fail(u, 0, "building the request", err)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "cairn")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, c.transportError(ctx, reqCtx, timeout, u, 0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.MaxBody+1))
	if err != nil {
		return resp.StatusCode, nil, c.transportError(ctx, reqCtx, timeout, u, resp.StatusCode, err)
	}
	if int64(len(data)) > c.MaxBody {
		return resp.StatusCode, nil, c.Fail(u, resp.StatusCode, fmt.Sprintf("answer larger than %d bytes (HTTP %d)", c.MaxBody, resp.StatusCode), nil)
	}
	return resp.StatusCode, data, nil
}

// transportError explains a failed request or body read.
func (c *Client) transportError(ctx, reqCtx context.Context, timeout time.Duration, u *url.URL, status int, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL
	}
	switch {
	case ctx.Err() != nil:
		return c.Fail(u, status, "request abandoned", ctx.Err())
	case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
		return c.Fail(u, status, fmt.Sprintf("no answer within %s (%s)", timeout, c.TimeoutKey), context.DeadlineExceeded)
	}
	var op *net.OpError
	if status == 0 && errors.As(err, &op) && op.Op == "dial" {
		return c.Fail(u, 0, "not reachable", err)
	}
	if status == 0 {
		return c.Fail(u, 0, "request failed", err)
	}
	return c.Fail(u, status, fmt.Sprintf("reading the answer (HTTP %d)", status), err)
}

// StatusError describes a non-2xx answer with the server's own message and
// an optional hint for the user.
func (c *Client) StatusError(u *url.URL, status int, body []byte, hint string) *Error {
	msg := fmt.Sprintf("HTTP %d", status)
	if t := http.StatusText(status); t != "" {
		msg += " " + t
	}
	msg += ": " + ServerMessage(body, c.Secret)
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return c.Fail(u, status, msg, nil)
}
