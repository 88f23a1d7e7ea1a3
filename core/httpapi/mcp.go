package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/hooks"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/storage"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP tool limits.
const (
	MCPSearchDefaultLimit = 10
	MCPSearchMaxLimit     = 100
	MCPListDefaultLimit   = 20
	MCPListMaxLimit       = 200
)

// MCPInstructions tell an agent what the server is for.
const MCPInstructions = `cairn is a local, persistent memory shared across sessions. ` +
	`Search it (memory_search) before answering questions about earlier work, decisions or preferences; ` +
	`store durable facts, decisions and preferences with memory_store; correct or retire memories with ` +
	`memory_modify and memory_forget, always giving a reason.`

// mcpActor is who the history records for a write made through MCP: the
// caller's token when it sent one (by the token's role), else the client's
// name when it gave one, always as an agent.
func mcpActor(ctx context.Context, req *mcp.CallToolRequest) core.Actor {
	if info := authFrom(ctx); info.authenticated {
		return core.Actor{Name: info.actor, Type: auth.ActorType(info.claims.Role)}
	}
	a := core.Actor{Name: "mcp", Type: core.ActorAgent}
	if req != nil {
		// The client names itself: a clean line of bounded length.
		if name := text.Truncate(text.CleanLine(clientName(req)), 100); name != "" {
			a.Name = name
		}
	}
	return a
}

func clientName(req *mcp.CallToolRequest) string {
	if ci := req.ClientInfo(); ci != nil {
		return ci.Name
	}
	return ""
}

// mcpTools holds the MCP tool handlers; each calls the service it wraps.
// Over HTTP a scoped token's tools are confined as its API routes are
// (scope.go): searches and lists to its project, stores stamped with its
// scope, a memory outside it not found (read) or forbidden (changed).
type mcpTools struct {
	*core.Service
	hooks *hooks.Hooks // resolves the projects calls name
	// defaultProject is what memory_store files a memory under when the
	// call names no project (the stdio server's working directory).
	defaultProject string
}

// mcpProject resolves the project a call names (a short name, an alias, a
// folder) to its identity; an empty one is the server's default project
// for a store, none for a search.
func (s mcpTools) mcpProject(ctx context.Context, given string, store bool) (string, error) {
	if strings.TrimSpace(given) == "" {
		if store {
			return s.defaultProject, nil
		}
		return "", nil
	}
	return s.hooks.ResolveProject(ctx, given)
}

// mcpScoped returns the caller's claims when its token's scope confines
// it, else nil (local callers, stdio, unscoped tokens).
func mcpScoped(ctx context.Context) *auth.Claims {
	if c := authFrom(ctx).claims; c.Scoped() {
		return c
	}
	return nil
}

// mcpAllowed refuses a tool whose permission the caller's token lacks: a
// read-only token searches, gets and lists over /mcp, and its calls leave
// no trace (readOnly); the tools that write need their own permission.
// Local and stdio callers carry no claims and may call every tool.
func mcpAllowed(ctx context.Context, tool, perm string) error {
	c := authFrom(ctx).claims
	if c == nil || auth.RoleHas(c.Role, perm) {
		return nil
	}
	return &mcpToolError{Code: auth.CodeForbidden, Message: fmt.Sprintf("role '%s' lacks '%s' permission for %s", c.Role, perm, tool)}
}

// mcpCheck checks memory id against a scoped caller's scope: outside its
// project the memory is not found (read) or forbidden (changed); a change
// needs its author to be the token's agent or user.
func (s mcpTools) mcpCheck(ctx context.Context, tool, id string, write bool) error {
	c := mcpScoped(ctx)
	if c == nil || id == "" {
		return nil
	}
	m, err := s.Get(ctx, id, true)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	} else if err != nil {
		return s.mcpErr(tool, err)
	}
	if c.Scope.CoversProject(m.Project) && (!write || c.Scope.CoversAuthor(m.Who)) {
		return nil
	}
	recordScopeDenied(s.Service, ctx, "mcp "+tool+": token scope does not cover memory "+id, id)
	if !write {
		return &mcpToolError{Code: core.CodeNotFound, Message: "no memory with id " + id}
	}
	return &mcpToolError{Code: auth.CodeForbidden, Message: "token scope does not cover memory " + id}
}

// mcpToolError is a tool failure shown to the model as an isError result
// whose text names cairn's error code.
type mcpToolError struct {
	Code    string
	Message string
}

func (e *mcpToolError) Error() string { return text.Display(e.Code + ": " + e.Message) }

// mcpErr converts a service error into a tool failure. Internal errors are
// logged and reported with their text so a local user can act on them.
func (s mcpTools) mcpErr(tool string, err error) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		msg := ce.Message
		if f, ok := ce.Extra["field"].(string); ok && f != "" && !strings.Contains(msg, f) {
			msg += " (field " + f + ")"
		}
		if d, ok := ce.Extra["duplicateMemoryId"].(string); ok && d != "" {
			msg += " (duplicate of " + d + ")"
		}
		return &mcpToolError{Code: ce.Code, Message: msg}
	}
	s.Logger().Error("mcp tool failed", "tool", tool, "err", err)
	return &mcpToolError{Code: core.CodeInternal, Message: err.Error()}
}

func mcpF64(x float64) *float64 { return &x }

func mcpBool(b bool) *bool { return &b }

// mcpSchema infers T's schema and lets adjust add bounds, defaults and
// enums. Pointer and slice fields get their plain type, not ["null", T]:
// optional inputs are omitted rather than sent as null, outputs never hold
// null, and single types suit every client's schema dialect.
func mcpSchema[T any](adjust func(p map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	mcpNoNull(s)
	if adjust != nil {
		adjust(s.Properties)
	}
	return s
}

func mcpNoNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		mcpNoNull(p)
	}
	mcpNoNull(s.Items)
}

// ---- memory_search ----

// MCPSearchInput is memory_search's input.
type MCPSearchInput struct {
	Query         string   `json:"query" jsonschema:"what to look for, in natural language or keywords"`
	Limit         int      `json:"limit,omitempty" jsonschema:"maximum number of results (1-100, default 10)"`
	Type          string   `json:"type,omitempty" jsonschema:"only memories of this type (e.g. fact, decision, preference, rule, issue)"`
	Tags          []string `json:"tags,omitempty" jsonschema:"only memories carrying every one of these tags"`
	Project       string   `json:"project,omitempty" jsonschema:"only memories of this project"`
	Who           string   `json:"who,omitempty" jsonschema:"only memories from this author (e.g. claude-code, user)"`
	MinScore      *float64 `json:"min_score,omitempty" jsonschema:"drop results whose relevance score is below this (0-1); not importance"`
	ImportanceMin *float64 `json:"importance_min,omitempty" jsonschema:"only memories whose importance is at least this (0-1)"`
	Since         string   `json:"since,omitempty" jsonschema:"only memories created at or after this time (RFC 3339 or a date like 2026-01-31)"`
	Until         string   `json:"until,omitempty" jsonschema:"only memories created at or before this time (RFC 3339, or a date meaning its end)"`
	Mode          string   `json:"mode,omitempty" jsonschema:"search legs: hybrid (keyword and vector, the default), keyword or vector"`
	Scope         string   `json:"scope,omitempty" jsonschema:"only memories of this scope: project, user (the user's preferences, every project) or agent"`
}

// MCPSearchHit is one memory_search result.
type MCPSearchHit struct {
	ID         string   `json:"id" jsonschema:"memory id"`
	Content    string   `json:"content" jsonschema:"the memory's text (long content is cut; see truncated)"`
	Truncated  bool     `json:"truncated,omitempty" jsonschema:"true when content was cut; memory_get returns it whole"`
	Score      float64  `json:"score" jsonschema:"relevance from 0 to 1"`
	Type       string   `json:"type" jsonschema:"memory type"`
	Tags       []string `json:"tags" jsonschema:"tags"`
	Pinned     bool     `json:"pinned" jsonschema:"pinned memories are critical and never decay"`
	Importance float64  `json:"importance" jsonschema:"importance from 0 to 1"`
	Project    string   `json:"project,omitempty" jsonschema:"project"`
	Who        string   `json:"who,omitempty" jsonschema:"author"`
	CreatedAt  string   `json:"created_at" jsonschema:"creation time (UTC)"`
}

// MCPSearchOutput is memory_search's structured result.
type MCPSearchOutput struct {
	Results  []MCPSearchHit `json:"results" jsonschema:"matching memories, best first"`
	Count    int            `json:"count" jsonschema:"number of results"`
	Method   string         `json:"method" jsonschema:"how the results were found: hybrid, keyword or vector"`
	Warnings []string       `json:"warnings,omitempty" jsonschema:"why a search leg did not run, if one did not"`
}

func (s mcpTools) mcpSearch(ctx context.Context, _ *mcp.CallToolRequest, in MCPSearchInput) (*mcp.CallToolResult, *MCPSearchOutput, error) {
	if in.Limit == 0 {
		in.Limit = MCPSearchDefaultLimit
	}
	if in.Limit < 1 || in.Limit > MCPSearchMaxLimit {
		return nil, nil, s.mcpErr("memory_search", core.Invalid("limit", "limit must be an integer from 1 to %d", MCPSearchMaxLimit))
	}
	if in.MinScore != nil && !core.ValidUnit(*in.MinScore) {
		return nil, nil, s.mcpErr("memory_search", core.Invalid("min_score", "min_score must be a number between 0 and 1"))
	}
	if in.ImportanceMin != nil && !core.ValidUnit(*in.ImportanceMin) {
		return nil, nil, s.mcpErr("memory_search", core.Invalid("importance_min", "importance_min must be a number between 0 and 1"))
	}
	f := storage.MemoryFilter{Type: strings.TrimSpace(in.Type), Tags: mcpTagFilter(in.Tags), Project: in.Project,
		Who: in.Who, ImportanceMin: in.ImportanceMin, Scope: strings.ToLower(strings.TrimSpace(in.Scope))}
	if c := mcpScoped(ctx); c != nil && c.Scope.Project != "" {
		f.Project = c.Scope.Project
	} else if p, err := s.mcpProject(ctx, in.Project, false); err != nil {
		return nil, nil, s.mcpErr("memory_search", err)
	} else {
		f.Project = p
	}
	var e *core.Error
	if f.Since, e = parseTimeParam("since", in.Since, false); e != nil {
		return nil, nil, s.mcpErr("memory_search", e)
	}
	if f.Until, e = parseTimeParam("until", in.Until, true); e != nil {
		return nil, nil, s.mcpErr("memory_search", e)
	}
	res, err := s.Recall(ctx, core.RecallInput{Query: in.Query, Limit: in.Limit, Filter: f, Mode: strings.TrimSpace(in.Mode), NoTracking: readOnly(ctx)})
	if err != nil {
		return nil, nil, s.mcpErr("memory_search", err)
	}
	out := &MCPSearchOutput{Results: []MCPSearchHit{}, Method: res.Method, Warnings: res.Warnings}
	for _, h := range res.Results {
		if in.MinScore != nil && h.Score < *in.MinScore {
			continue
		}
		tags := h.Tags
		if tags == nil {
			tags = []string{}
		}
		// What the model reads carries no control character or escape
		// sequence (text.Display), the structured copy included.
		shown := make([]string, len(tags))
		for i, t := range tags {
			shown[i] = text.DisplayLine(t)
		}
		out.Results = append(out.Results, MCPSearchHit{ID: h.ID, Content: text.Display(h.Content), Truncated: h.Truncated,
			Score: h.Score, Type: text.DisplayLine(h.Type), Tags: shown, Pinned: h.Pinned, Importance: h.Importance,
			Project: text.DisplayLine(h.Project), Who: text.DisplayLine(h.Who), CreatedAt: h.CreatedAt})
	}
	out.Count = len(out.Results)

	var b strings.Builder
	fmt.Fprintf(&b, "%d result(s) for %q (%s search)", out.Count, in.Query, out.Method)
	for i, h := range out.Results {
		fmt.Fprintf(&b, "\n%d. [%.2f] %s%s (%s%s, id %s)", i+1, h.Score, mcpPin(h.Pinned), mcpLine(h.Content, 300),
			h.Type, mcpTags(h.Tags), h.ID)
	}
	for _, w := range out.Warnings {
		b.WriteString("\nwarning: " + w)
	}
	return mcpText(text.Display(b.String())), out, nil
}

// ---- memory_store ----

// MCPStoreInput is memory_store's input.
type MCPStoreInput struct {
	Content    string   `json:"content" jsonschema:"the memory: one self-contained fact, decision, preference or note"`
	Type       string   `json:"type,omitempty" jsonschema:"memory type (e.g. fact, decision, preference, rule, issue); inferred from the content when omitted"`
	Importance *float64 `json:"importance,omitempty" jsonschema:"importance from 0 to 1 (default 0.8; 1 when pinned through a critical: prefix)"`
	Tags       []string `json:"tags,omitempty" jsonschema:"tags to file the memory under"`
	Pinned     *bool    `json:"pinned,omitempty" jsonschema:"pin the memory: critical, never decays, needs force to forget"`
	Project    string   `json:"project,omitempty" jsonschema:"project the memory belongs to"`
	Who        string   `json:"who,omitempty" jsonschema:"author of the memory (default: the MCP client's name)"`
	Key        string   `json:"key,omitempty" jsonschema:"a key for a fact that has one current value (e.g. timezone, staging.db.port): storing a new value for the key in the project supersedes the old one"`
	Scope      string   `json:"scope,omitempty" jsonschema:"project (the default), user (a preference or fact about the user, recalled in every project) or agent (about this agent only)"`
}

// MCPStoreOutput is memory_store's structured result.
type MCPStoreOutput struct {
	ID         string   `json:"id,omitempty" jsonschema:"id of the stored memory (absent when the content was chunked)"`
	Type       string   `json:"type,omitempty" jsonschema:"type stored"`
	Tags       []string `json:"tags,omitempty" jsonschema:"tags stored"`
	Pinned     bool     `json:"pinned,omitempty" jsonschema:"whether the memory is pinned"`
	Importance float64  `json:"importance,omitempty" jsonschema:"importance stored"`
	Version    int64    `json:"version,omitempty" jsonschema:"version, for if_version on later changes"`
	Deduped    bool     `json:"deduped" jsonschema:"true when an identical memory already existed and was returned instead"`
	Embedded   bool     `json:"embedded" jsonschema:"true when the memory has a vector for semantic search"`
	Chunked    bool     `json:"chunked,omitempty" jsonschema:"true when long content was split into several memories"`
	IDs        []string `json:"ids,omitempty" jsonschema:"ids of the chunks, in order, when chunked"`
	GroupID    string   `json:"group_id,omitempty" jsonschema:"id shared by the chunks, when chunked"`
	Superseded []string `json:"superseded,omitempty" jsonschema:"ids of the memories this one replaced: the same key, or a new value of an attribute of the same entity"`
}

func (s mcpTools) mcpStore(ctx context.Context, req *mcp.CallToolRequest, in MCPStoreInput) (*mcp.CallToolResult, *MCPStoreOutput, error) {
	if err := mcpAllowed(ctx, "memory_store", auth.PermRemember); err != nil {
		return nil, nil, err
	}
	actor := mcpActor(ctx, req)
	rin := core.RememberInput{Content: in.Content, Type: in.Type, Importance: in.Importance, Pinned: in.Pinned,
		Project: in.Project, Who: in.Who, SourceType: "mcp", Key: in.Key, Scope: in.Scope}
	if c := mcpScoped(ctx); c != nil {
		if sc, _ := evolution.NormalizeScope(in.Scope); sc != "" && c.Scope.Project != "" {
			return nil, nil, s.mcpErr("memory_store", core.Invalid("scope", "a token scoped to a project writes project memories only"))
		}
		rin.Project = core.OrDefault(c.Scope.Project, rin.Project)
		rin.Who = core.OrDefault(c.Scope.Author(), rin.Who)
	} else if p, err := s.mcpProject(ctx, in.Project, true); err != nil {
		return nil, nil, s.mcpErr("memory_store", err)
	} else {
		rin.Project = p
	}
	if in.Tags != nil {
		rin.Tags = in.Tags
	}
	res, err := s.Remember(ctx, rin, actor)
	if err != nil {
		return nil, nil, s.mcpErr("memory_store", err)
	}
	out := &MCPStoreOutput{Deduped: res.Deduped, Embedded: res.Embedded, Superseded: res.Superseded}
	if res.Chunked {
		out.Chunked, out.IDs, out.GroupID = true, res.IDs, res.GroupID
		return mcpText(fmt.Sprintf("stored as %d chunks (group %s): %s", len(res.IDs), res.GroupID, strings.Join(res.IDs, ", "))), out, nil
	}
	m := res.Memory.Displayed()
	out.ID, out.Type, out.Tags, out.Pinned, out.Importance, out.Version = m.ID, m.Type, m.Tags, m.Pinned, m.Importance, m.Version
	verb := "stored"
	if res.Deduped {
		verb = "already stored (deduplicated)"
	}
	return mcpText(fmt.Sprintf("%s %s: %s%s (%s%s, importance %.2f)", verb, m.ID, mcpPin(m.Pinned),
		mcpLine(m.Content, 200), m.Type, mcpTags(m.Tags), m.Importance)), out, nil
}

// ---- memory_get ----

// MCPGetInput is memory_get's input.
type MCPGetInput struct {
	ID string `json:"id" jsonschema:"memory id"`
}

func (s mcpTools) mcpGet(ctx context.Context, _ *mcp.CallToolRequest, in MCPGetInput) (*mcp.CallToolResult, *core.Memory, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, nil, s.mcpErr("memory_get", core.Invalid("id", "id is required"))
	}
	if err := s.mcpCheck(ctx, "memory_get", strings.TrimSpace(in.ID), false); err != nil {
		return nil, nil, err
	}
	m, err := s.Get(ctx, strings.TrimSpace(in.ID), false)
	if err != nil {
		if errors.Is(err, core.ErrNotFound) {
			return nil, nil, &mcpToolError{Code: core.CodeNotFound, Message: "no memory with id " + in.ID}
		}
		return nil, nil, s.mcpErr("memory_get", err)
	}
	m = m.Displayed()
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s\nid %s · version %d · %s%s · importance %.2f · created %s by %s", mcpPin(m.Pinned), m.Content,
		m.ID, m.Version, m.Type, mcpTags(m.Tags), m.Importance, m.CreatedAt, core.OrDefault(m.Who, m.UpdatedBy))
	if m.Project != "" {
		b.WriteString(" · project " + m.Project)
	}
	return mcpText(b.String()), m, nil
}

// ---- memory_list ----

// MCPListInput is memory_list's input.
type MCPListInput struct {
	Limit   int      `json:"limit,omitempty" jsonschema:"page size (1-200, default 20)"`
	Offset  int      `json:"offset,omitempty" jsonschema:"number of memories to skip (for paging)"`
	Type    string   `json:"type,omitempty" jsonschema:"only memories of this type"`
	Tags    []string `json:"tags,omitempty" jsonschema:"only memories carrying every one of these tags"`
	Project string   `json:"project,omitempty" jsonschema:"only memories of this project"`
	Who     string   `json:"who,omitempty" jsonschema:"only memories from this author"`
	Pinned  *bool    `json:"pinned,omitempty" jsonschema:"only pinned (true) or only unpinned (false) memories"`
}

// MCPListOutput is memory_list's structured result.
type MCPListOutput struct {
	Memories []*core.Memory `json:"memories" jsonschema:"this page of memories, newest first"`
	Count    int            `json:"count" jsonschema:"number of memories on this page"`
	Total    int            `json:"total" jsonschema:"number of memories matching the filters"`
	Limit    int            `json:"limit" jsonschema:"page size used"`
	Offset   int            `json:"offset" jsonschema:"offset used"`
	HasMore  bool           `json:"has_more" jsonschema:"true when more memories follow this page"`
}

func (s mcpTools) mcpList(ctx context.Context, _ *mcp.CallToolRequest, in MCPListInput) (*mcp.CallToolResult, *MCPListOutput, error) {
	if in.Limit == 0 {
		in.Limit = MCPListDefaultLimit
	}
	if in.Limit < 1 || in.Limit > MCPListMaxLimit {
		return nil, nil, s.mcpErr("memory_list", core.Invalid("limit", "limit must be an integer from 1 to %d", MCPListMaxLimit))
	}
	if in.Offset < 0 {
		return nil, nil, s.mcpErr("memory_list", core.Invalid("offset", "offset must not be negative"))
	}
	f := storage.MemoryFilter{Type: strings.TrimSpace(in.Type), Tags: mcpTagFilter(in.Tags), Project: in.Project,
		Who: in.Who, Pinned: in.Pinned}
	if c := mcpScoped(ctx); c != nil && c.Scope.Project != "" {
		f.Project = c.Scope.Project
	} else if p, err := s.mcpProject(ctx, in.Project, false); err != nil {
		return nil, nil, s.mcpErr("memory_list", err)
	} else {
		f.Project = p
	}
	res, err := s.List(ctx, f, in.Limit, in.Offset)
	if err != nil {
		return nil, nil, s.mcpErr("memory_list", err)
	}
	for i, m := range res.Memories {
		res.Memories[i] = m.Displayed()
	}
	out := &MCPListOutput{Memories: res.Memories, Count: res.Count, Total: res.Total, Limit: res.Limit,
		Offset: res.Offset, HasMore: res.HasMore}
	var b strings.Builder
	if out.Count == 0 {
		fmt.Fprintf(&b, "no memories (total %d)", out.Total)
	} else {
		fmt.Fprintf(&b, "memories %d-%d of %d", out.Offset+1, out.Offset+out.Count, out.Total)
	}
	for _, m := range out.Memories {
		fmt.Fprintf(&b, "\n- %s%s (%s%s, id %s)", mcpPin(m.Pinned), mcpLine(m.Content, 200), m.Type, mcpTags(m.Tags), m.ID)
	}
	return mcpText(b.String()), out, nil
}

// ---- memory_modify and memory_forget ----

// MCPModifyInput is memory_modify's input.
type MCPModifyInput struct {
	ID         string    `json:"id" jsonschema:"id of the memory to change"`
	Reason     string    `json:"reason" jsonschema:"why the memory is changed (recorded in its history)"`
	IfVersion  *int64    `json:"if_version,omitempty" jsonschema:"apply only if the memory is still at this version (optimistic locking)"`
	Content    *string   `json:"content,omitempty" jsonschema:"new text"`
	Type       *string   `json:"type,omitempty" jsonschema:"new type"`
	Importance *float64  `json:"importance,omitempty" jsonschema:"new importance from 0 to 1"`
	Tags       *[]string `json:"tags,omitempty" jsonschema:"new tags, replacing the old ones ([] clears them)"`
	Pinned     *bool     `json:"pinned,omitempty" jsonschema:"pin (true) or unpin (false)"`
}

// MCPForgetInput is memory_forget's input.
type MCPForgetInput struct {
	ID        string `json:"id" jsonschema:"id of the memory to forget"`
	Reason    string `json:"reason" jsonschema:"why the memory is forgotten (recorded in its history)"`
	Force     bool   `json:"force,omitempty" jsonschema:"required to forget a pinned memory"`
	IfVersion *int64 `json:"if_version,omitempty" jsonschema:"forget only if the memory is still at this version"`
}

// MCPMutationOutput is the structured result of memory_modify and memory_forget.
type MCPMutationOutput struct {
	ID              string `json:"id" jsonschema:"memory id"`
	Status          string `json:"status" jsonschema:"updated, no_changes or deleted"`
	Version         int64  `json:"version" jsonschema:"the memory's version now"`
	PreviousVersion int64  `json:"previous_version,omitempty" jsonschema:"the version before this change"`
	ContentChanged  *bool  `json:"content_changed,omitempty" jsonschema:"whether the text changed"`
	Embedded        *bool  `json:"embedded,omitempty" jsonschema:"whether the new text has a vector already"`
}

func mcpMutationOut(r *core.MutationResult) *MCPMutationOutput {
	out := &MCPMutationOutput{ID: r.ID, Status: r.Status, Version: r.CurrentVersion,
		ContentChanged: r.ContentChanged, Embedded: r.Embedded}
	if r.NewVersion != 0 {
		out.Version, out.PreviousVersion = r.NewVersion, r.CurrentVersion
	}
	return out
}

// mcpMutationErr reports a failed change, naming the current version on a conflict.
func (s mcpTools) mcpMutationErr(tool string, r *core.MutationResult, err error) error {
	te := s.mcpErr(tool, err)
	if e, ok := te.(*mcpToolError); ok && r != nil && r.CurrentVersion > 0 && !strings.Contains(e.Message, "version "+strconv.FormatInt(r.CurrentVersion, 10)) {
		e.Message += fmt.Sprintf(" (the memory is at version %d)", r.CurrentVersion)
	}
	if e, ok := te.(*mcpToolError); ok && e.Code == core.CodeNotFound {
		e.Message = "no memory with id " + r.ID
	}
	return te
}

func (s mcpTools) mcpModify(ctx context.Context, req *mcp.CallToolRequest, in MCPModifyInput) (*mcp.CallToolResult, *MCPMutationOutput, error) {
	p := core.Patch{ID: strings.TrimSpace(in.ID), Reason: in.Reason, IfVersion: in.IfVersion, Content: in.Content,
		Type: in.Type, Importance: in.Importance, Tags: in.Tags, Pinned: in.Pinned}
	if p.Tags != nil && *p.Tags == nil {
		p.Tags = &[]string{}
	}
	if err := mcpAllowed(ctx, "memory_modify", auth.PermModify); err != nil {
		return nil, nil, err
	}
	if err := s.mcpCheck(ctx, "memory_modify", p.ID, true); err != nil {
		return nil, nil, err
	}
	r, err := s.Modify(ctx, p, mcpActor(ctx, req))
	if err != nil {
		return nil, nil, s.mcpMutationErr("memory_modify", r, err)
	}
	out := mcpMutationOut(r)
	msg := fmt.Sprintf("memory %s updated to version %d", r.ID, out.Version)
	if r.Status == "no_changes" {
		msg = fmt.Sprintf("memory %s unchanged (no field differed); still version %d", r.ID, out.Version)
	}
	return mcpText(msg), out, nil
}

func (s mcpTools) mcpForget(ctx context.Context, req *mcp.CallToolRequest, in MCPForgetInput) (*mcp.CallToolResult, *MCPMutationOutput, error) {
	if err := mcpAllowed(ctx, "memory_forget", auth.PermForget); err != nil {
		return nil, nil, err
	}
	if err := s.mcpCheck(ctx, "memory_forget", strings.TrimSpace(in.ID), true); err != nil {
		return nil, nil, err
	}
	r, err := s.Forget(ctx, core.ForgetInput{ID: strings.TrimSpace(in.ID), Reason: in.Reason, IfVersion: in.IfVersion, Force: in.Force}, mcpActor(ctx, req))
	if err != nil {
		return nil, nil, s.mcpMutationErr("memory_forget", r, err)
	}
	out := mcpMutationOut(r)
	days := int(s.Config().Memory.RecoverWindow.D().Hours() / 24)
	return mcpText(fmt.Sprintf("memory %s forgotten (soft-deleted, now version %d; recoverable for %d days)", r.ID, out.Version, days)), out, nil
}

// ---- the server ----

// NewMCPServer returns an MCP server exposing cairn's memory tools over ap:
// memory_search, memory_store, memory_get, memory_list, memory_modify and
// memory_forget. Every write goes through the service's one write path with
// the calling client as an agent actor. Tool failures are isError results
// whose text starts with cairn's error code.
func NewMCPServer(ap *app.App, version string) *mcp.Server {
	return NewMCPServerFor(ap, version, MCPOptions{})
}

// MCPOptions tune an MCP server for where it runs.
type MCPOptions struct {
	// DefaultProject is the project memory_store uses when a call names
	// none: the stdio server's current project (core/project.Current).
	DefaultProject string
}

// NewMCPServerFor is NewMCPServer with options.
func NewMCPServerFor(ap *app.App, version string, o MCPOptions) *mcp.Server {
	svc := ap.Service
	tools := mcpTools{Service: svc, hooks: ap.Hooks, defaultProject: o.DefaultProject}
	srv := mcp.NewServer(MCPImplementation(version), &mcp.ServerOptions{Instructions: MCPInstructions, Logger: quietLogger(svc.Logger())})
	closed := mcpBool(false)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_search",
		OutputSchema: mcpSchema[MCPSearchOutput](nil),
		Title:        "Search memories",
		Description: "Search cairn's memories by meaning and keywords (hybrid search) and return the best matches with " +
			"their relevance score. Filters narrow the candidates; min_score drops weak matches.",
		InputSchema: mcpSchema[MCPSearchInput](func(p map[string]*jsonschema.Schema) {
			p["query"].MinLength = mcpInt(1)
			p["limit"].Minimum, p["limit"].Maximum, p["limit"].Default = mcpF64(1), mcpF64(MCPSearchMaxLimit), mcpRaw(MCPSearchDefaultLimit)
			p["min_score"].Minimum, p["min_score"].Maximum = mcpF64(0), mcpF64(1)
			p["importance_min"].Minimum, p["importance_min"].Maximum = mcpF64(0), mcpF64(1)
			p["mode"].Enum = []any{core.ModeHybrid, core.ModeKeyword, core.ModeVector}
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Search memories", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpSearch)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_store",
		OutputSchema: mcpSchema[MCPStoreOutput](nil),
		Title:        "Store a memory",
		Description: "Store one memory in cairn. Identical content already stored is not duplicated (deduped is true); " +
			"very long content is split into chunks. A \"critical:\" prefix pins it; \"[tag1,tag2]:\" adds tags.",
		InputSchema: mcpSchema[MCPStoreInput](func(p map[string]*jsonschema.Schema) {
			p["content"].MinLength = mcpInt(1)
			p["importance"].Minimum, p["importance"].Maximum = mcpF64(0), mcpF64(1)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Store a memory", DestructiveHint: mcpBool(false), IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpStore)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_get",
		OutputSchema: mcpSchema[core.Memory](nil),
		Title:        "Get a memory",
		Description:  "Return one memory with every field (content, type, tags, importance, version, history counters, ...).",
		InputSchema:  mcpSchema[MCPGetInput](func(p map[string]*jsonschema.Schema) { p["id"].MinLength = mcpInt(1) }),
		Annotations:  &mcp.ToolAnnotations{Title: "Get a memory", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpGet)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_list",
		OutputSchema: mcpSchema[MCPListOutput](nil),
		Title:        "List memories",
		Description:  "List memories newest first, one page at a time, optionally filtered by type, tags, project, author or pinned.",
		InputSchema: mcpSchema[MCPListInput](func(p map[string]*jsonschema.Schema) {
			p["limit"].Minimum, p["limit"].Maximum, p["limit"].Default = mcpF64(1), mcpF64(MCPListMaxLimit), mcpRaw(MCPListDefaultLimit)
			p["offset"].Minimum, p["offset"].Default = mcpF64(0), mcpRaw(0)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "List memories", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpList)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_modify",
		OutputSchema: mcpSchema[MCPMutationOutput](nil),
		Title:        "Modify a memory",
		Description: "Change a memory's content, type, importance, tags or pinned state, with a reason recorded in its history. " +
			"Give if_version to refuse the change if someone else changed the memory first.",
		InputSchema: mcpSchema[MCPModifyInput](func(p map[string]*jsonschema.Schema) {
			p["id"].MinLength, p["reason"].MinLength = mcpInt(1), mcpInt(1)
			p["if_version"].Minimum = mcpF64(1)
			p["importance"].Minimum, p["importance"].Maximum = mcpF64(0), mcpF64(1)
			p["content"].MinLength = mcpInt(1)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Modify a memory", DestructiveHint: mcpBool(false), IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpModify)

	mcp.AddTool(srv, &mcp.Tool{
		Name:         "memory_forget",
		OutputSchema: mcpSchema[MCPMutationOutput](nil),
		Title:        "Forget a memory",
		Description: "Forget (soft-delete) a memory, with a reason recorded in its history. It leaves search and lists at once " +
			"and can be recovered for a while. Pinned memories need force.",
		InputSchema: mcpSchema[MCPForgetInput](func(p map[string]*jsonschema.Schema) {
			p["id"].MinLength, p["reason"].MinLength = mcpInt(1), mcpInt(1)
			p["if_version"].Minimum = mcpF64(1)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: mcpBool(true), IdempotentHint: true, OpenWorldHint: closed},
	}, tools.mcpForget)

	return srv
}

// MCPImplementation is how cairn's MCP server names itself.
func MCPImplementation(version string) *mcp.Implementation {
	if version == "" {
		version = "dev"
	}
	return &mcp.Implementation{Name: "cairn", Title: "cairn memory", Version: version}
}

// mcpHandler serves the MCP tools over stateless Streamable HTTP (one POST,
// one JSON answer; no sessions). The SDK's DNS-rebinding protection stays
// on: a request reaching a loopback address with a non-loopback Host is
// refused.
func (a *API) mcpHandler() http.Handler {
	// Built at the first request (the tools' schemas take milliseconds to
	// reflect): a server whose agents use only hooks never builds it.
	srv := sync.OnceValue(func() *mcp.Server { return NewMCPServer(a.app, a.version) })
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv() },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: quietLogger(a.log)})
}

// ---- helpers ----

func mcpText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func mcpInt(n int) *int { return &n }

func mcpRaw(n int) json.RawMessage { return json.RawMessage(strconv.Itoa(n)) }

func mcpTagFilter(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	return text.CleanTags(tags)
}

func mcpPin(pinned bool) string {
	if pinned {
		return "★ "
	}
	return ""
}

func mcpTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return " #" + strings.Join(tags, " #")
}

// oneLine flattens s to one line of at most n characters.
func mcpLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
