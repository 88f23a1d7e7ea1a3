package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/cairnmem/cairn/core/connectors"
)

// Connectors calls GET /api/connectors: every connector with its state,
// oldest first.
func (c *Client) Connectors(ctx context.Context) ([]*connectors.Connector, error) {
	var out struct {
		Connectors []*connectors.Connector `json:"connectors"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/connectors", nil, &out); err != nil {
		return nil, err
	}
	return out.Connectors, nil
}

// Connector calls GET /api/connectors/{id}.
func (c *Client) Connector(ctx context.Context, id string) (*connectors.Connector, error) {
	var out connectors.Connector
	if err := c.do(ctx, http.MethodGet, "/api/connectors/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SyncConnector calls POST /api/connectors/{id}/sync. A sync that ran
// but failed (the folder went away) answers 200 with what it did and the
// error: both come back, as from connectors.Sync.
func (c *Client) SyncConnector(ctx context.Context, id string) (*connectors.SyncResult, error) {
	var out struct {
		Result *connectors.SyncResult `json:"result"`
		Error  string                 `json:"error"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/connectors/"+url.PathEscape(id)+"/sync", map[string]any{}, &out); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return out.Result, errors.New(out.Error)
	}
	return out.Result, nil
}
