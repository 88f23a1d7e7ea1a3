package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/auth"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// PollInterval is how often client mode asks the running cairn whether
// anything changed: the HTTP API has no event stream, and the newest
// history event is one cheap indexed query.
const PollInterval = 2 * time.Second

// HTTP is a Backend over the API of the cairn that holds the database.
type HTTP struct {
	base   string
	client *http.Client
}

// NewHTTP returns a Backend for the API at addr (host:port).
func NewHTTP(addr string) *HTTP {
	return &HTTP{base: "http://" + addr, client: &http.Client{Timeout: callTimeout}}
}

// Mode implements Backend.
func (h *HTTP) Mode() string { return "client" }

// do sends a JSON request and decodes the answer into out; API error bodies
// become *core.Error so the panes handle both backends alike.
func (h *HTTP) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, body)
	if err != nil {
		return err
	}
	auth.AuthorizeRequest(req)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Cairn-Actor", Actor.Name)
	req.Header.Set("X-Cairn-Actor-Type", Actor.Type)
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("cairn at %s does not answer: %w", h.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e map[string]any
		if json.Unmarshal(data, &e) == nil {
			if msg, _ := e["error"].(string); msg != "" {
				code, _ := e["code"].(string)
				return &core.Error{Code: code, Message: msg, Extra: e}
			}
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

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

// Recall implements Backend.
func (h *HTTP) Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error) {
	f := in.Filter
	body := map[string]any{"query": in.Query, "explain": in.Explain, "track": false}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	if in.Mode != "" {
		body["mode"] = in.Mode
	}
	for k, v := range map[string]string{"type": f.Type, "who": f.Who, "project": f.Project, "since": f.Since, "until": f.Until} {
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
	var out core.RecallResult
	err := h.do(ctx, http.MethodPost, "/api/memory/recall", body, &out)
	return &out, err
}

// List implements Backend.
func (h *HTTP) List(ctx context.Context, f storage.MemoryFilter, limit int) ([]*core.Memory, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	filterQuery(f, q)
	var out core.ListResult
	if err := h.do(ctx, http.MethodGet, "/api/memories?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Memories, nil
}

// Get implements Backend.
func (h *HTTP) Get(ctx context.Context, id string) (*core.Memory, error) {
	var m core.Memory
	err := h.do(ctx, http.MethodGet, "/api/memory/"+url.PathEscape(id)+"?include_deleted=true", nil, &m)
	return &m, err
}

// Remember implements Backend.
func (h *HTTP) Remember(ctx context.Context, in core.RememberInput) (*core.Memory, error) {
	body := map[string]any{"content": in.Content}
	if in.Type != "" {
		body["type"] = in.Type
	}
	if in.Tags != nil {
		body["tags"] = in.Tags
	}
	if in.Importance != nil {
		body["importance"] = *in.Importance
	}
	if in.Pinned != nil {
		body["pinned"] = *in.Pinned
	}
	var out struct {
		ID  string   `json:"id"`
		IDs []string `json:"ids"`
	}
	if err := h.do(ctx, http.MethodPost, "/api/memory/remember", body, &out); err != nil {
		return nil, err
	}
	id := out.ID
	if id == "" && len(out.IDs) > 0 {
		id = out.IDs[0]
	}
	if id == "" {
		return nil, fmt.Errorf("remember: the API answered without an id")
	}
	return h.Get(ctx, id)
}

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

// Modify implements Backend.
func (h *HTTP) Modify(ctx context.Context, p core.Patch) (*core.MutationResult, error) {
	var out core.MutationResult
	err := h.do(ctx, http.MethodPatch, "/api/memory/"+url.PathEscape(p.ID), patchBody(p), &out)
	return &out, err
}

// Forget implements Backend.
func (h *HTTP) Forget(ctx context.Context, in core.ForgetInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason, "force": in.Force}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := h.do(ctx, http.MethodDelete, "/api/memory/"+url.PathEscape(in.ID), body, &out)
	return &out, err
}

// Recover implements Backend.
func (h *HTTP) Recover(ctx context.Context, in core.RecoverInput) (*core.MutationResult, error) {
	body := map[string]any{"reason": in.Reason}
	if in.IfVersion != nil {
		body["if_version"] = *in.IfVersion
	}
	var out core.MutationResult
	err := h.do(ctx, http.MethodPost, "/api/memory/"+url.PathEscape(in.ID)+"/recover", body, &out)
	return &out, err
}

type historyPage struct {
	History []*core.HistoryEntry `json:"history"`
}

// MemoryHistory implements Backend.
func (h *HTTP) MemoryHistory(ctx context.Context, id string) ([]*core.HistoryEntry, error) {
	var out historyPage
	err := h.do(ctx, http.MethodGet, "/api/memory/"+url.PathEscape(id)+"/history?limit="+strconv.Itoa(HistoryLimit), nil, &out)
	return out.History, err
}

// History implements Backend.
func (h *HTTP) History(ctx context.Context, f storage.HistoryFilter, limit int) ([]*core.HistoryEntry, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"memory_id": f.MemoryID, "event": f.Event, "actor": f.Actor, "before": f.Before} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out historyPage
	err := h.do(ctx, http.MethodGet, "/api/history?"+q.Encode(), nil, &out)
	return out.History, err
}

// Status implements Backend. Health is the round trip of GET /health.
func (h *HTTP) Status(ctx context.Context) (Status, error) {
	st := Status{Addr: strings.TrimPrefix(h.base, "http://")}
	start := time.Now()
	if err := h.do(ctx, http.MethodGet, "/health", nil, nil); err != nil {
		return st, err
	}
	st.Health = "api " + roundMS(time.Since(start))
	var s struct {
		AuthMode string `json:"authMode"`
		Pipeline struct {
			Mode string `json:"mode"`
		} `json:"pipeline"`
		Memories storage.MemoryStats `json:"memories"`
		Queue    map[string]int      `json:"queue"`
	}
	if err := h.do(ctx, http.MethodGet, "/api/status", nil, &s); err != nil {
		return st, err
	}
	st.AuthMode, st.Pipeline = s.AuthMode, s.Pipeline.Mode
	st.Memories, st.Deleted = s.Memories.Total, s.Memories.Deleted
	if s.Queue != nil {
		st.Queue, st.QueueKnown = s.Queue["pending"]+s.Queue["leased"], true
		st.DeadJobs = s.Queue["dead"]
	}
	// The API has no proposal count: one page of ids is enough to tell a
	// person that decisions wait.
	ps, err := h.Proposals(ctx, core.ProposalFilter{State: storage.ProposalPending}, statusProposalPage)
	if err != nil {
		return st, err
	}
	st.PendingProposals, st.ProposalsCapped = len(ps), len(ps) == statusProposalPage
	return st, nil
}

// statusProposalPage is how many pending proposals client mode counts for
// the status bar before it says "100+".
const statusProposalPage = 100

// Jobs implements Backend with GET /api/jobs, which returns the counts
// with the rows.
func (h *HTTP) Jobs(ctx context.Context, f core.JobFilter, limit int) (*JobsPage, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"status": f.Status, "type": f.JobType, "memory_id": f.MemoryID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out struct {
		Jobs   []*storage.Job            `json:"jobs"`
		Counts map[string]int            `json:"counts"`
		ByType map[string]map[string]int `json:"byType"`
	}
	if err := h.do(ctx, http.MethodGet, "/api/jobs?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &JobsPage{Jobs: out.Jobs, ByStatus: out.Counts, ByType: out.ByType}, nil
}

// Job implements Backend.
func (h *HTTP) Job(ctx context.Context, id string) (*storage.Job, error) {
	var j storage.Job
	if err := h.do(ctx, http.MethodGet, "/api/jobs/"+url.PathEscape(id), nil, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// RetryJob implements Backend.
func (h *HTTP) RetryJob(ctx context.Context, id string) (*storage.Job, error) {
	var out struct {
		Job *storage.Job `json:"job"`
	}
	if err := h.do(ctx, http.MethodPost, "/api/jobs/"+url.PathEscape(id)+"/retry", map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Job, nil
}

// repair posts one repair action: POST /api/repair/{action} with
// core.RepairOptions as the body and core.RepairResult as the answer.
func (h *HTTP) repair(ctx context.Context, action string, opts ops.RepairOptions) (*ops.RepairResult, error) {
	var out ops.RepairResult
	if err := h.do(ctx, http.MethodPost, "/api/repair/"+url.PathEscape(action), opts, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RequeueDead implements Backend.
func (h *HTTP) RequeueDead(ctx context.Context, id string, limit int) (*ops.RepairResult, error) {
	return h.repair(ctx, ops.RepairRequeueDead, ops.RepairOptions{JobID: id, BatchSize: limit, Reason: "requeued from the TUI"})
}

// ReleaseLeases implements Backend.
func (h *HTTP) ReleaseLeases(ctx context.Context) (*ops.RepairResult, error) {
	return h.repair(ctx, ops.RepairReleaseLeases, ops.RepairOptions{Reason: "released from the TUI"})
}

// Proposals implements Backend.
func (h *HTTP) Proposals(ctx context.Context, f core.ProposalFilter, limit int) ([]*storage.Proposal, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range map[string]string{"state": f.State, "action": f.Action, "source_memory_id": f.SourceMemoryID, "job_id": f.JobID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out struct {
		Proposals []*storage.Proposal `json:"proposals"`
	}
	if err := h.do(ctx, http.MethodGet, "/api/proposals?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Proposals, nil
}

// Proposal implements Backend.
func (h *HTTP) Proposal(ctx context.Context, id string) (*storage.Proposal, error) {
	var p storage.Proposal
	if err := h.do(ctx, http.MethodGet, "/api/proposals/"+url.PathEscape(id), nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (h *HTTP) decide(ctx context.Context, id, verb, reason string) (*storage.Proposal, error) {
	var out struct {
		Proposal *storage.Proposal `json:"proposal"`
	}
	if err := h.do(ctx, http.MethodPost, "/api/proposals/"+url.PathEscape(id)+"/"+verb, map[string]any{"reason": reason}, &out); err != nil {
		return nil, err
	}
	return out.Proposal, nil
}

// ApproveProposal implements Backend.
func (h *HTTP) ApproveProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return h.decide(ctx, id, "approve", reason)
}

// RejectProposal implements Backend.
func (h *HTTP) RejectProposal(ctx context.Context, id, reason string) (*storage.Proposal, error) {
	return h.decide(ctx, id, "reject", reason)
}

// Changes implements Backend by polling the newest history event.
func (h *HTTP) Changes() (<-chan Change, func()) {
	out := make(chan Change, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(out)
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		last := ""
		first := true
		for {
			page, err := h.History(ctx, storage.HistoryFilter{}, 1)
			if err == nil && len(page) > 0 && page[0].ID != last {
				if !first {
					e := page[0]
					select {
					case out <- Change{Kind: e.Event, MemoryID: e.MemoryID, Actor: e.ChangedBy}:
					case <-ctx.Done():
						return
					}
				}
				last = page[0].ID
			}
			if err == nil {
				first = false
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return out, func() { once.Do(cancel) }
}
