package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/sessions"
)

func hookRequestFrom(b body) (hooks.Request, *core.Error) {
	var h hooks.Request
	var e *core.Error
	str := func(dst *string, names ...string) {
		if e == nil {
			*dst, _, e = b.str(names...)
		}
	}
	str(&h.Harness, "harness")
	str(&h.Project, "project")
	if h.Project == "" {
		str(&h.Project, "cwd")
	}
	str(&h.SessionKey, "session_key", "sessionKey", "session_id", "sessionId")
	str(&h.Prompt, "user_message", "userMessage", "user_prompt", "userPrompt", "prompt")
	str(&h.LastAssistant, "last_assistant_message", "lastAssistantMessage")
	str(&h.TranscriptPath, "transcript_path", "transcriptPath")
	str(&h.Transcript, "transcript")
	str(&h.TranscriptWarning, "transcript_warning", "transcriptWarning")
	str(&h.Reason, "reason")
	str(&h.Source, "source")
	str(&h.Content, "content")
	str(&h.Query, "query")
	str(&h.Summary, "summary")
	str(&h.Instructions, "custom_instructions", "customInstructions")
	str(&h.Who, "who")
	str(&h.Type, "type")
	str(&h.IdempotencyKey, "idempotency_key", "idempotencyKey")
	str(&h.RuntimePath, "runtime_path", "runtimePath")
	if e != nil {
		return h, e
	}
	h.Harness = strings.TrimSpace(h.Harness)
	if h.Harness == "" {
		return h, core.Invalid("harness", "harness is required")
	}
	// The project is resolved by the Hooks flows, by strings only
	// (core/project): the server never stats a folder a request names.
	if resolved, e := b.boolean("project_resolved", "projectResolved"); e != nil {
		return h, e
	} else if resolved != nil {
		h.ProjectResolved = *resolved
	}
	h.SessionKey = strings.TrimSpace(h.SessionKey)
	if h.Importance, e = b.number("importance"); e != nil {
		return h, e
	}
	if h.Pinned, e = b.boolean("pinned"); e != nil {
		return h, e
	}
	tags, e := b.tags("tags")
	if e != nil {
		return h, e
	}
	if tags != nil {
		h.Tags = *tags
	}
	if raw, _ := b.field("limit"); raw != nil {
		n, err := b.integer("limit")
		if err != nil || n == nil || *n < 1 || *n > core.MaxRecallLimit {
			return h, core.Invalid("limit", "limit must be an integer from 1 to %d", core.MaxRecallLimit)
		}
		h.Limit = int(*n)
	}
	return h, nil
}

// DecodeHookRequest decodes a hook body (used by the spool).
func DecodeHookRequest(raw []byte) (hooks.Request, error) {
	b, e := parseBody(raw)
	if e != nil {
		return hooks.Request{}, e
	}
	h, e := hookRequestFrom(b)
	if e != nil {
		return h, e
	}
	return h, nil
}

// ---------------------------------------------------------------------------
// HTTP handlers
// ---------------------------------------------------------------------------

func (a *API) hookBody(w http.ResponseWriter, r *http.Request) (hooks.Request, bool) {
	b, e := readBody(w, r, a.hookLimit())
	if e == nil {
		var h hooks.Request
		if h, e = hookRequestFrom(b); e == nil {
			confineHook(r, &h)
			h.ReadOnly = readOnlyCaller(r)
			return h, true
		}
	}
	writeError(w, e)
	return hooks.Request{}, false
}

func (a *API) hookSessionStart(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.SessionStart(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookUserPrompt(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	if strings.TrimSpace(h.Prompt) == "" {
		writeError(w, core.Invalid("userMessage", "harness and userMessage or userPrompt are required"))
		return
	}
	res, err := a.app.Hooks.UserPrompt(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookSessionEnd(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	// The caller (a 1-second shim) may hang up; the work still finishes.
	// It is bounded: the transcript is the request's own (the server
	// never opens transcript_path), normalized within
	// hooks.transcript_max_chars, then one short write.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 60*time.Second)
	defer cancel()
	res, err := a.app.Hooks.SessionEnd(ctx, h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// hookSessionTranscript serves a live session's transcript so far: stored
// and learned from without ending the session (hooks.SessionTranscript).
func (a *API) hookSessionTranscript(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.SessionTranscript(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookRemember(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.Remember(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookRecall(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.Recall(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookPreCompaction(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.PreCompaction(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) hookCompactionComplete(w http.ResponseWriter, r *http.Request) {
	h, ok := a.hookBody(w, r)
	if !ok {
		return
	}
	res, err := a.app.Hooks.CompactionComplete(r.Context(), h)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) listSessions(w http.ResponseWriter, r *http.Request) {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		if _, err := fmt.Sscan(v, &limit); err != nil || limit < 1 || limit > 1000 {
			writeError(w, core.Invalid("limit", "limit must be an integer from 1 to 1000"))
			return
		}
	}
	out, err := a.app.Sessions.List(r.Context(), r.URL.Query().Get("project"), limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out = visibleSessions(r, out)
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "count": len(out)})
}

func (a *API) getSession(w http.ResponseWriter, r *http.Request) {
	s, err := a.app.Sessions.Get(r.Context(), r.PathValue("key"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

// checkpointSession serves POST /api/sessions/{key}/checkpoints {trigger:
// explicit (the default) or agent, note}: a checkpoint of the session now,
// with the note as its session context.
func (a *API) checkpointSession(w http.ResponseWriter, r *http.Request) {
	b, e := a.optionalBody(w, r)
	if e != nil {
		writeError(w, e)
		return
	}
	trigger, _, e := b.str("trigger")
	if e != nil {
		writeError(w, e)
		return
	}
	note, _, e := b.str("note", "context")
	if e != nil {
		writeError(w, e)
		return
	}
	switch trigger {
	case "":
		trigger = sessions.TriggerExplicit
	case sessions.TriggerExplicit, sessions.TriggerAgent:
	default:
		writeError(w, core.Invalid("trigger", "trigger must be explicit or agent (the others are the hooks')"))
		return
	}
	cp, err := a.app.Sessions.CheckpointSession(r.Context(), r.PathValue("key"), trigger, note)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, cp)
}
