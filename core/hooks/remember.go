package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// RememberResult is the answer of the remember hook.
type RememberResult struct {
	Saved   bool     `json:"saved"`
	ID      string   `json:"id"`
	IDs     []string `json:"ids,omitempty"`
	Deduped bool     `json:"deduped,omitempty"`
}

// Remember stores content through the one write path (Remember), with
// secrets redacted and the harness, project and session recorded.
func (hk *Hooks) Remember(ctx context.Context, h Request) (*RememberResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Content) == "" {
		return nil, core.Invalid("content", "harness and content are required")
	}
	in := core.RememberInput{
		Content: hk.mem.Redact(text.StripInjected(h.Content)), Type: h.Type, Tags: h.Tags, Importance: h.Importance, Pinned: h.Pinned,
		Who: core.OrDefault(h.Who, h.Harness), Project: h.Project, SessionID: h.SessionKey, SourceType: "hook",
		IdempotencyKey: h.IdempotencyKey, RuntimePath: h.RuntimePath,
	}
	res, err := hk.mem.Remember(ctx, in, h.actor())
	if err != nil {
		return nil, err
	}
	hk.sessions.NoteRemember(h.SessionKey, h.Content)
	out := &RememberResult{Saved: true, Deduped: res.Deduped}
	if res.Chunked {
		out.IDs = res.IDs
		if len(res.IDs) > 0 {
			out.ID = res.IDs[0]
		}
	} else if res.Memory != nil {
		out.ID = res.Memory.ID
	}
	return out, nil
}

// RecallResult is the answer of the recall hook.
type RecallResult struct {
	Results []*core.RecallHit `json:"results"`
	Count   int               `json:"count"`
	Query   string            `json:"query"`
	Method  string            `json:"method"`
}

// Recall searches with the same hybrid recall as /api/memory/recall,
// scoped to the project.
func (hk *Hooks) Recall(ctx context.Context, h Request) (*RecallResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Query) == "" {
		return nil, core.Invalid("query", "harness and query are required")
	}
	limit := h.Limit
	if limit == 0 {
		limit = 10
	}
	hits, method, err := hk.scopedRecall(ctx, h.Query, "", h.Project, h.Confined, h.ProjectNames, limit)
	if err == nil {
		hits, err = hk.withoutForeign(ctx, h, hits)
	}
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, hit := range hits {
		hit.Content = hk.shown(hit.Content)
		hit.Explain = nil // asked for the gate of prompt injection, not by the caller
		ids[i] = hit.ID
	}
	if !h.ReadOnly {
		hk.mem.RecordAccess(ctx, ids) // the agent asked and gets them: they are read
		hk.sessions.NoteQuery(h.SessionKey, h.Query)
	}
	if h.SessionKey != "" && len(ids) > 0 && hk.keeps(h) {
		// The agent asking again for what was injected is a use of it.
		uses := map[string]int{}
		for _, id := range ids {
			uses[id] = 1
		}
		hk.sessions.AddUses(ctx, h.SessionKey, uses)
	}
	if hits == nil {
		hits = []*core.RecallHit{}
	}
	return &RecallResult{Results: hits, Count: len(hits), Query: h.Query, Method: method}, nil
}

// PreCompactionResult is the answer of the pre-compaction hook.
type PreCompactionResult struct {
	SummaryPrompt string            `json:"summaryPrompt"`
	Guidelines    string            `json:"guidelines"`
	Memories      []*InjectedMemory `json:"memories"`
	// CheckpointID is the pre_compaction checkpoint recorded (session
	// continuity on, a session key given).
	CheckpointID string `json:"checkpointId,omitempty"`
	// Learned is what became of the transcript the request carried (the
	// hook shim sends it): stored, and its learning queued, so what the
	// session taught before the compaction is live memory.
	Learned *TranscriptResult `json:"learned,omitempty"`
}

const compactionGuidelines = `- Decisions made and why
- Facts learned about the project, the codebase and the user
- Preferences the user stated
- Open threads and next steps
- Errors met and how they were fixed
- A short first-person summary of the session`

// PreCompaction returns the prompt that asks the agent to store
// durable memories before its context is compacted, with the project's
// most relevant recent memories for reference.
func (hk *Hooks) PreCompaction(ctx context.Context, h Request) (*PreCompactionResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	cands, err := hk.startCandidates(ctx, h.Project, h.Confined, h.ProjectNames)
	if err != nil {
		return nil, err
	}
	now := hk.now()
	score := func(c *startCandidate) float64 {
		days := 0.0
		if t, err := storage.ParseTime(c.m.CreatedAt); err == nil {
			days = max(0, now.Sub(t).Hours()/24)
		}
		return c.m.Importance*0.1 + 0.9/(1+days)
	}
	slices.SortStableFunc(cands, func(a, b *startCandidate) int {
		if a.sameProj != b.sameProj {
			return boolOrder(a.sameProj)
		}
		sa, sb := score(a), score(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	res := &PreCompactionResult{Guidelines: compactionGuidelines, Memories: []*InjectedMemory{}}
	var b strings.Builder
	b.WriteString("Pre-compaction memory flush. Store durable memories now.\n\n" + compactionGuidelines + "\n")
	for i, c := range cands {
		if i == 5 {
			break
		}
		if i == 0 {
			b.WriteString("\nRecent memories for reference:\n")
		}
		m := c.m
		m.Content = hk.shown(text.Truncate(m.Content, 300))
		m.Score = math.Round(score(c)*1000) / 1000
		res.Memories = append(res.Memories, &m)
		b.WriteString("- " + text.OneLine(m.Content) + "\n")
	}
	res.SummaryPrompt = text.Display(b.String())
	// Where the session is, kept for after the compaction (with what the
	// harness said of the session, if anything, and what the user asked
	// the compaction to keep).
	hk.sessions.NoteCompaction(h.SessionKey, h.Instructions)
	if strings.TrimSpace(h.Transcript) != "" && h.SessionKey != "" && !hk.frozen() {
		// Never a failed hook: a transcript that cannot be stored is
		// learned from at the session's end.
		if l, err := hk.learnTranscript(ctx, h); err != nil {
			hk.log.Warn("pre-compaction transcript", "err", err)
		} else {
			res.Learned = l
		}
	}
	if cp, err := hk.sessions.Checkpoint(ctx, h.ref(), sessions.TriggerPreCompaction, core.OrDefault(h.Summary, h.Content)); err != nil {
		hk.log.Warn("pre-compaction checkpoint", "err", err)
	} else if cp != nil {
		res.CheckpointID = cp.ID
	}
	return res, nil
}

// CompactionResult is the answer of the compaction-complete hook.
type CompactionResult struct {
	Success  bool     `json:"success"`
	MemoryID string   `json:"memoryId"`
	IDs      []string `json:"ids,omitempty"`
}

// CompactionComplete stores the compaction summary as a
// session_summary memory through Remember and resets the session's
// injection dedup (the compacted context no longer holds them).
func (hk *Hooks) CompactionComplete(ctx context.Context, h Request) (*CompactionResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Summary) == "" {
		return nil, core.Invalid("summary", "harness and summary are required")
	}
	imp := 0.8
	summary := hk.mem.Redact(text.StripInjected(h.Summary))
	key := h.IdempotencyKey
	if key == "" {
		sum := sha256.Sum256([]byte(h.SessionKey + "\x00" + summary))
		key = "compaction:" + hex.EncodeToString(sum[:12])
	}
	res, err := hk.mem.Remember(ctx, core.RememberInput{Content: summary, Type: "session_summary", Importance: &imp,
		Tags: []string{"session", "summary", h.Harness}, Who: h.Harness, Project: h.Project, SessionID: h.SessionKey,
		SourceType: "hook", IdempotencyKey: key, RuntimePath: h.RuntimePath},
		h.actor())
	if err != nil {
		return nil, err
	}
	out := &CompactionResult{Success: true}
	if res.Chunked {
		out.IDs = res.IDs
		if len(res.IDs) > 0 {
			out.MemoryID = res.IDs[0]
		}
	} else if res.Memory != nil {
		out.MemoryID = res.Memory.ID
	}
	if h.SessionKey != "" {
		if err := hk.sessions.ClearInjections(ctx, h.SessionKey); err != nil {
			hk.log.Warn("reset injections", "err", err)
		}
	}
	return out, nil
}
