package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/cairnmem/cairn/workers/internal/provider"
)

// client is the HTTP plumbing shared by the ollama, openai and anthropic
// providers: provider.Client with the model settings.
type client struct {
	settings
	provider.Client
}

func newClient(name string, s settings, base *url.URL) *client {
	return &client{settings: s, Client: provider.NewClient(name, base, MaxResponseBytes, "pipeline_v2.timeout")}
}

// post sends body as JSON and decodes a 2xx answer into out. Non-2xx
// answers become errors carrying the server's own message.
func (c *client) post(ctx context.Context, timeout time.Duration, path string, body, out any) error {
	u := c.Endpoint(path)
	status, data, err := c.Do(ctx, timeout, http.MethodPost, u, body)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		return c.StatusError(u, status, data, statusHint(status))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return c.Fail(u, status, "malformed JSON answer", err)
	}
	return nil
}

// statusHint says what to check after an error status.
func statusHint(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "check the API key"
	case http.StatusNotFound:
		return "check base_url and model"
	}
	return ""
}
