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
	"github.com/cairnmem/cairn/core/wire"
)

// Remember implements Client with POST /api/memory/remember.
func (c *Remote) Remember(ctx context.Context, in core.RememberInput) (*wire.Remembered, error) {
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/api/memory/remember", RememberBody(in), &raw); err != nil {
		return nil, err
	}
	out := &wire.Remembered{Raw: raw}
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
		"idempotency_key": in.IdempotencyKey, "runtime_path": in.RuntimePath, "key": in.Key, "scope": in.Scope,
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

// Recall implements Client with POST /api/memory/recall.
func (c *Remote) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	var out core.RecallResult
	err := c.do(ctx, http.MethodPost, "/api/memory/recall", RecallBody(in), &out)
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
		"type": f.Type, "who": f.Who, "project": f.Project, "source_type": f.SourceType, "since": f.Since, "until": f.Until,
		"scope": f.Scope} {
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
func filterQuery(f core.MemoryFilter, q url.Values) {
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

// Recent implements Client with GET /api/memories.
func (c *Remote) Recent(ctx context.Context, f core.MemoryFilter, limit int) ([]*core.Memory, error) {
	out, err := c.List(ctx, f, limit, 0)
	if err != nil {
		return nil, err
	}
	return out.Memories, nil
}

// List implements Client with GET /api/memories: the page of limit
// memories after the first offset ones.
func (c *Remote) List(ctx context.Context, f core.MemoryFilter, limit, offset int) (*core.ListResult, error) {
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

// ProjectCounts implements Client with GET /api/memories/projects.
func (c *Remote) ProjectCounts(ctx context.Context, f core.MemoryFilter) (map[string]int, error) {
	q := url.Values{}
	filterQuery(f, q)
	var out struct {
		Projects map[string]int `json:"projects"`
	}
	if err := c.do(ctx, http.MethodGet, withQuery("/api/memories/projects", q), nil, &out); err != nil {
		return nil, err
	}
	return out.Projects, nil
}

// pageQuery adds p (and count) to a query string as the API's paged
// list routes read them.
func pageQuery(p core.PageQuery, count bool, q url.Values) {
	q.Set("paged", "true")
	q.Set("limit", strconv.Itoa(p.Limit))
	if p.Oldest {
		q.Set("order", "oldest")
	}
	switch {
	case p.Before != "":
		q.Set("cursor_before", p.Before)
		if p.Inclusive {
			q.Set("inclusive", "true")
		}
	case p.After != "":
		q.Set("cursor_after", p.After)
	case p.Last:
		q.Set("cursor_last", "true")
	}
	if count {
		q.Set("count", "true")
	}
}

// Page implements Client with GET /api/memories?paged=true.
func (c *Remote) Page(ctx context.Context, f core.MemoryFilter, p core.PageQuery, count bool) (*core.MemoryPage, error) {
	q := url.Values{}
	filterQuery(f, q)
	pageQuery(p, count, q)
	var out core.MemoryPage
	if err := c.do(ctx, http.MethodGet, withQuery("/api/memories", q), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get implements Client with GET /api/memory/{id}.
func (c *Remote) Get(ctx context.Context, id string, includeDeleted bool) (*core.Memory, error) {
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

// mutation keeps the API's answer of a refused change beside the error, as
// the service returns it; a call that got no answer returns no result.
func mutation(res *core.MutationResult, err error) (*core.MutationResult, error) {
	if err != nil && StatusOf(err) == 0 {
		return nil, err
	}
	return res, err
}

// Modify implements Client with PATCH /api/memory/{id}.
func (c *Remote) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	var out core.MutationResult
	err := c.do(ctx, http.MethodPatch, "/api/memory/"+url.PathEscape(p.ID), patchBody(p), &out)
	return mutation(&out, err)
}

// Forget implements Client with DELETE /api/memory/{id}.
func (c *Remote) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason, "force": in.Force}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := c.do(ctx, http.MethodDelete, "/api/memory/"+url.PathEscape(in.ID), body, &out)
	return mutation(&out, err)
}

// Recover implements Client with POST /api/memory/{id}/recover.
func (c *Remote) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := c.do(ctx, http.MethodPost, "/api/memory/"+url.PathEscape(in.ID)+"/recover", body, &out)
	return mutation(&out, err)
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

// ForgetBatch implements Client with POST /api/memory/forget: a preview
// of what a batch forget selects, or its execution (Mode "execute", with
// the preview's confirm token when the selection is large).
func (c *Remote) ForgetBatch(ctx context.Context, in core.BatchForgetInput) (*core.BatchForgetResult, error) {
	body := map[string]any{}
	f := in.Filter
	for k, v := range map[string]string{"mode": in.Mode, "query": in.Query, "match": in.Match, "reason": in.Reason,
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
	History []*wire.HistoryEntry `json:"history"`
}

// MemoryHistory implements Client with GET /api/memory/{id}/history.
func (c *Remote) MemoryHistory(ctx context.Context, id string, limit int) ([]*wire.HistoryEntry, error) {
	var out historyPage
	err := c.do(ctx, http.MethodGet, "/api/memory/"+url.PathEscape(id)+"/history?limit="+strconv.Itoa(limit), nil, &out)
	return out.History, err
}

// MemoryStamp implements Client with GET /api/memory/{id}/stamp.
func (c *Remote) MemoryStamp(ctx context.Context, id string) (string, error) {
	var out struct {
		Stamp string `json:"stamp"`
	}
	err := c.do(ctx, http.MethodGet, "/api/memory/"+url.PathEscape(id)+"/stamp", nil, &out)
	return out.Stamp, err
}

// History implements Client with GET /api/history.
func (c *Remote) History(ctx context.Context, f core.HistoryFilter, limit int) ([]*wire.HistoryEntry, error) {
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

// Export implements Client with GET /api/memories/export, handing fn each
// line as it arrives. The stream is not cut by Options.Timeout; one that
// ends without the API's end marker is an error (the export is
// incomplete).
func (c *Remote) Export(ctx context.Context, f core.MemoryFilter, fn func(json.RawMessage) error) error {
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

// importChunk is how many lines go to the API at a time: one of the
// store's import transactions (core.Import); importChunkBytes bounds a
// chunk's size, well under what the API reads in one import.
const (
	importChunk      = 2000
	importChunkBytes = 16 << 20
)

// Import implements Client with POST /api/memories/import, in chunks of
// importChunk lines (and at most importChunkBytes), reporting progress
// after each.
func (c *Remote) Import(ctx context.Context, lines []transfer.ImportLine, raw map[int][]byte, progress func(done int)) (*transfer.ImportResult, error) {
	total := &transfer.ImportResult{}
	for start, end := 0, 0; start < len(lines); start = end {
		var chunk [][]byte
		size := 0
		for end = start; end < len(lines) && end-start < importChunk && (end == start || size+len(raw[lines[end].Line]) <= importChunkBytes); end++ {
			chunk = append(chunk, raw[lines[end].Line])
			size += len(raw[lines[end].Line])
		}
		res, err := c.ImportLines(ctx, chunk)
		if err != nil {
			return total, err
		}
		total.Total += res.Total
		total.Imported += res.Imported
		total.Deduped += res.Deduped
		total.Existing += res.Existing
		if progress != nil {
			progress(end)
		}
	}
	return total, nil
}

// ImportSignet implements SignetImporter with POST
// /api/memories/import/signet. It waits as long as the import takes (the
// server's write_timeout bounds it), not Options.Timeout.
func (c *Remote) ImportSignet(ctx context.Context, path string, opt transfer.SignetOptions) (*transfer.SignetReport, error) {
	r, err := jsonRequest(http.MethodPost, "/api/memories/import/signet",
		map[string]any{"path": path, "embedding_model": opt.EmbeddingModel, "dry_run": opt.DryRun})
	if err != nil {
		return nil, err
	}
	r.stream = true
	var out transfer.SignetReport
	if err := c.call(ctx, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ImportLines calls POST /api/memories/import with exported JSON lines
// (as Export produces them, one memory per line), in one request.
func (c *Remote) ImportLines(ctx context.Context, lines [][]byte) (*transfer.ImportResult, error) {
	var out transfer.ImportResult
	err := c.call(ctx, request{method: http.MethodPost, path: "/api/memories/import",
		contentType: "application/x-ndjson", body: bytes.NewReader(bytes.Join(lines, []byte("\n")))}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
