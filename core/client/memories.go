package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// Remembered is the answer to a remember: one memory (ID), or the chunks
// long content was split into (Chunked, IDs, GroupID).
type Remembered struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Tags       []string `json:"tags"`
	Pinned     bool     `json:"pinned"`
	Importance float64  `json:"importance"`
	Embedded   bool     `json:"embedded"`
	Deduped    bool     `json:"deduped"`
	Chunked    bool     `json:"chunked"`
	IDs        []string `json:"ids"`
	GroupID    string   `json:"group_id"`
	Superseded []string `json:"superseded"`
	// Raw is the answer as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// Remember calls POST /api/memory/remember. body is a JSON object as the
// API reads it: a map of its field names, or RememberBody of a
// core.RememberInput.
func (c *Client) Remember(ctx context.Context, body any) (*Remembered, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/api/memory/remember", body, &raw); err != nil {
		return nil, err
	}
	out := &Remembered{Raw: raw}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// RememberBody renders in as the body of POST /api/memory/remember; unset
// fields are left out so the API applies its defaults.
func RememberBody(in core.RememberInput) map[string]any {
	body := map[string]any{"content": in.Content}
	for k, v := range map[string]string{
		"type": in.Type, "who": in.Who, "project": in.Project, "session_id": in.SessionID,
		"source_type": in.SourceType, "source_id": in.SourceID, "category": in.Category, "why": in.Why,
		"idempotency_key": in.IdempotencyKey, "runtime_path": in.RuntimePath,
	} {
		if v != "" {
			body[k] = v
		}
	}
	if in.Tags != nil {
		body["tags"] = in.Tags
	}
	if in.Importance != nil {
		body["importance"] = *in.Importance
	}
	if in.Confidence != nil {
		body["confidence"] = *in.Confidence
	}
	if in.Pinned != nil {
		body["pinned"] = *in.Pinned
	}
	return body
}

// Recall calls POST /api/memory/recall. body is a JSON object as the API
// reads it: a map of its field names, or RecallBody of a core.RecallInput.
func (c *Client) Recall(ctx context.Context, body any) (*core.RecallResult, error) {
	var out core.RecallResult
	err := c.do(ctx, http.MethodPost, "/api/memory/recall", body, &out)
	return &out, err
}

// RecallBody renders in as the body of POST /api/memory/recall. NoTracking
// becomes "track": false; unset fields are left out.
func RecallBody(in core.RecallInput) map[string]any {
	f := in.Filter
	body := map[string]any{"query": in.Query, "explain": in.Explain}
	if in.NoTracking {
		body["track"] = false
	}
	if in.Expand {
		body["expand"] = true
	}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	for k, v := range map[string]string{"mode": in.Mode, "keyword_query": in.KeywordQuery,
		"type": f.Type, "who": f.Who, "project": f.Project, "source_type": f.SourceType, "since": f.Since, "until": f.Until} {
		if v != "" {
			body[k] = v
		}
	}
	if len(f.Tags) > 0 {
		body["tags"] = f.Tags
	}
	if f.Pinned != nil {
		body["pinned"] = *f.Pinned
	}
	if f.ImportanceMin != nil {
		body["importance_min"] = *f.ImportanceMin
	}
	return body
}

// filterQuery adds f to a query string as the API's list and export
// routes read it.
func filterQuery(f storage.MemoryFilter, q url.Values) {
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("type", f.Type)
	set("who", f.Who)
	set("project", f.Project)
	set("source_type", f.SourceType)
	set("since", f.Since)
	set("until", f.Until)
	if len(f.Tags) > 0 {
		q.Set("tags", strings.Join(f.Tags, ","))
	}
	if f.Pinned != nil {
		q.Set("pinned", strconv.FormatBool(*f.Pinned))
	}
	if f.ImportanceMin != nil {
		q.Set("importance_min", strconv.FormatFloat(*f.ImportanceMin, 'f', -1, 64))
	}
	if f.IncludeDeleted {
		q.Set("include_deleted", "true")
	}
	if f.OnlyDeleted {
		q.Set("only_deleted", "true")
	}
}

// withQuery appends q to path when it has any values.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// List calls GET /api/memories: memories matching f, newest first.
func (c *Client) List(ctx context.Context, f storage.MemoryFilter, limit int) (*core.ListResult, error) {
	return c.ListPage(ctx, f, limit, 0)
}

// ListPage calls GET /api/memories for the page of limit memories after
// the first offset ones.
func (c *Client) ListPage(ctx context.Context, f storage.MemoryFilter, limit, offset int) (*core.ListResult, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	filterQuery(f, q)
	var out core.ListResult
	if err := c.do(ctx, http.MethodGet, withQuery("/api/memories", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get calls GET /api/memory/{id}; includeDeleted also finds a
// soft-deleted memory.
func (c *Client) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
	path := "/api/memory/" + url.PathEscape(id)
	if includeDeleted {
		path += "?include_deleted=true"
	}
	var m core.Memory
	if err := c.do(ctx, http.MethodGet, path, nil, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// patchBody renders p as the body of PATCH /api/memory/{id}.
func patchBody(p core.Patch) map[string]any {
	body := map[string]any{}
	if p.Reason != "" {
		body["reason"] = p.Reason
	}
	if p.IfVersion != nil {
		body["if_version"] = *p.IfVersion
	}
	if p.Content != nil {
		body["content"] = *p.Content
	}
	if p.Type != nil {
		body["type"] = *p.Type
	}
	if p.Tags != nil {
		body["tags"] = *p.Tags
	}
	if p.Importance != nil {
		body["importance"] = *p.Importance
	}
	if p.Pinned != nil {
		body["pinned"] = *p.Pinned
	}
	if p.Who != nil {
		body["who"] = *p.Who
	}
	if p.Project != nil {
		body["project"] = *p.Project
	}
	return body
}

// Modify calls PATCH /api/memory/{id}.
func (c *Client) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	var out core.MutationResult
	err := c.do(ctx, http.MethodPatch, "/api/memory/"+url.PathEscape(p.ID), patchBody(p), &out)
	return &out, err
}

// Forget calls DELETE /api/memory/{id}.
func (c *Client) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason, "force": in.Force}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := c.do(ctx, http.MethodDelete, "/api/memory/"+url.PathEscape(in.ID), body, &out)
	return &out, err
}

// Recover calls POST /api/memory/{id}/recover.
func (c *Client) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := c.do(ctx, http.MethodPost, "/api/memory/"+url.PathEscape(in.ID)+"/recover", body, &out)
	return &out, err
}

// forgetBatchAnswer is the answer of POST /api/memory/forget in either
// mode: a preview's fields or an execution's.
type forgetBatchAnswer struct {
	Mode            string                  `json:"mode"`
	Count           int                     `json:"count"`
	RequiresConfirm bool                    `json:"requiresConfirm"`
	ConfirmToken    string                  `json:"confirmToken"`
	Candidates      []*core.ForgetCandidate `json:"candidates"`
	Requested       int                     `json:"requested"`
	Deleted         int                     `json:"deleted"`
	Results         []*core.MutationResult  `json:"results"`
}

// ForgetBatch calls POST /api/memory/forget: a preview of what a batch
// forget selects, or its execution (Mode "execute", with the preview's
// confirm token when the selection is large).
func (c *Client) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	body := map[string]any{}
	f := in.Filter
	for k, v := range map[string]string{"mode": in.Mode, "query": in.Query, "reason": in.Reason,
		"confirm_token": in.ConfirmToken, "type": f.Type, "who": f.Who, "project": f.Project,
		"source_type": f.SourceType, "since": f.Since, "until": f.Until} {
		if v != "" {
			body[k] = v
		}
	}
	if len(f.Tags) > 0 {
		body["tags"] = f.Tags
	}
	if len(in.IDs) > 0 {
		body["ids"] = in.IDs
	}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	if in.Force {
		body["force"] = true
	}
	var out forgetBatchAnswer
	if err := c.do(ctx, http.MethodPost, "/api/memory/forget", body, &out); err != nil {
		return nil, err
	}
	return &core.BatchForgetResult{Mode: out.Mode, Count: out.Count, RequiresConfirm: out.RequiresConfirm,
		ConfirmToken: out.ConfirmToken, Candidates: out.Candidates, Requested: out.Requested,
		Deleted: out.Deleted, Results: out.Results}, nil
}

// historyPage is the answer of the history routes.
type historyPage struct {
	History []*core.HistoryEntry `json:"history"`
}

// MemoryHistory calls GET /api/memory/{id}/history: one memory's events,
// oldest first.
func (c *Client) MemoryHistory(ctx context.Context, id string, limit int) ([]*core.HistoryEntry, error) {
	var out historyPage
	err := c.do(ctx, http.MethodGet, "/api/memory/"+url.PathEscape(id)+"/history?limit="+strconv.Itoa(limit), nil, &out)
	return out.History, err
}

// History calls GET /api/history: the audit trail, newest first.
func (c *Client) History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*core.HistoryEntry, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"memory_id": f.MemoryID, "event": f.Event, "actor": f.Actor, "before": f.Before} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out historyPage
	err := c.do(ctx, http.MethodGet, withQuery("/api/history", q), nil, &out)
	return out.History, err
}

// exportLineMax bounds one exported memory's line.
const exportLineMax = 16 << 20

// Export calls GET /api/memories/export and hands fn each memory matching
// f as a JSON line, as it arrives. The stream is not cut by
// Options.Timeout; one that ends without the API's end marker is an error
// (the export is incomplete).
func (c *Client) Export(ctx context.Context, f storage.MemoryFilter, fn func(json.RawMessage) error) error {
	q := url.Values{}
	filterQuery(f, q)
	resp, cancel, err := c.send(ctx, request{method: http.MethodGet, path: withQuery("/api/memories/export", q), stream: true})
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), exportLineMax)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"_end"`)) {
			return nil
		}
		if err := fn(append(json.RawMessage(nil), line...)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("export stream ended early; the output is incomplete")
}

// Import calls POST /api/memories/import with exported JSON lines (as
// Export produces them, one memory per line).
func (c *Client) Import(ctx context.Context, lines [][]byte) (*transfer.ImportResult, error) {
	var out transfer.ImportResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/api/memories/import",
		contentType: "application/x-ndjson", body: bytes.NewReader(bytes.Join(lines, []byte("\n")))}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
