package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/cairnmem/cairn/core/wire"
)

// Connectors implements Client with GET /api/connectors.
func (c *Remote) Connectors(ctx context.Context) ([]*wire.Connector, error) {
	var out struct {
		Connectors []*wire.Connector `json:"connectors"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/connectors", nil, &out); err != nil {
		return nil, err
	}
	return out.Connectors, nil
}

// Connector calls GET /api/connectors/{id}.
func (c *Remote) Connector(ctx context.Context, id string) (*wire.Connector, error) {
	var out wire.Connector
	if err := c.do(ctx, http.MethodGet, "/api/connectors/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SyncConnector implements Client with POST /api/connectors/{id}/sync. A
// sync that ran but failed (the folder went away) answers 200 with what it
// did and the error: both come back, as in process.
func (c *Remote) SyncConnector(ctx context.Context, id string) (*wire.SyncResult, error) {
	var out struct {
		Result *wire.SyncResult `json:"result"`
		Error  string           `json:"error"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/connectors/"+url.PathEscape(id)+"/sync", map[string]any{}, &out); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return out.Result, errors.New(out.Error)
	}
	return out.Result, nil
}
