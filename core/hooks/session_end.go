package hooks

import (
	"context"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/text"
)

// SessionEndResult is the answer of the session-end hook.
type SessionEndResult struct {
	Queued          bool   `json:"queued"`
	SessionKey      string `json:"sessionKey"`
	Format          string `json:"format,omitempty"`
	TranscriptChars int    `json:"transcriptChars"`
	Truncated       bool   `json:"truncated,omitempty"`
	JobID           string `json:"jobId,omitempty"`
	MemoriesSaved   int    `json:"memoriesSaved"`
	// Transcript says what became of the transcript: "stored", or "not
	// sent" when the request carried none (Warning says why when it named
	// a path instead).
	Transcript string `json:"transcript"`
	Warning    string `json:"warning,omitempty"`
	// Score is the session's continuity score (session_scores), when
	// continuity is on.
	Score *float64 `json:"continuityScore,omitempty"`
}

// Transcript states of a session end.
const (
	TranscriptStored  = "stored"
	TranscriptNotSent = "not sent"
)

// SessionEnd records the end of a session and stores its transcript,
// normalized and stripped of cairn's injections, then queues extraction.
// The transcript is the request's own text: the server never opens a path a
// request names (any local page or process could have it read a file and
// serve it back as a session); the hook shim, which runs as the user in
// the harness, reads the file and sends its content.
func (hk *Hooks) SessionEnd(ctx context.Context, h Request) (*SessionEndResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	if err := hk.mem.CheckFrozen(); err != nil {
		return nil, err
	}
	if h.SessionKey == "" {
		h.SessionKey = "anon-" + core.NewID()
	}
	res := &SessionEndResult{Queued: true, SessionKey: h.SessionKey, Transcript: TranscriptNotSent}
	var tr *text.Transcript
	var err error
	switch {
	case h.Transcript != "":
		tr, err = text.NormalizeTranscript(strings.NewReader(h.Transcript), hk.cfg.Hooks.TranscriptMaxChars)
	case h.TranscriptPath != "":
		res.Warning = "transcript_path is not read by the server; send the transcript's content in transcript (cairn hook session-end does)"
	}
	if err != nil {
		return nil, err
	}
	res.TranscriptChars, res.JobID, err = hk.sessions.End(ctx, h.ref(), h.Reason, tr, h.TranscriptWarning)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		res.Format, res.Truncated = tr.Format, tr.Truncated
		res.Transcript = TranscriptStored
		res.Warning = strings.Join(nonEmpty(h.TranscriptWarning, tr.Warning()), "; ")
	}
	if _, err := hk.sessions.Checkpoint(ctx, h.ref(), sessions.TriggerSessionEnd, ""); err != nil {
		hk.log.Warn("session-end checkpoint", "err", err)
	}
	transcript := ""
	if tr != nil {
		transcript = tr.Text
	}
	if sc, err := hk.sessions.Score(ctx, h.ref(), transcript); err != nil {
		hk.log.Warn("score session", "err", err)
	} else if sc != nil {
		res.Score = &sc.Score
	}
	return res, nil
}

// nonEmpty is vs less its empty strings.
func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// TranscriptResult is the answer of the session-transcript hook, and
// what a pre-compaction that carried the transcript did with it.
type TranscriptResult struct {
	// Queued: the transcript was stored and its learning queued.
	Queued          bool   `json:"queued"`
	SessionKey      string `json:"sessionKey"`
	TranscriptChars int    `json:"transcriptChars"`
	JobID           string `json:"jobId,omitempty"`
	Warning         string `json:"warning,omitempty"`
}

// SessionTranscript stores a live session's transcript so far and queues
// the learning of what it added since the last time (the prompt hook asks
// for it when a periodic checkpoint falls due; a pre-compaction carries
// it too). What is learned is live before the session ends; a transcript
// that cannot all be read is learned from as far as it can, with the
// warning in the session's record.
func (hk *Hooks) SessionTranscript(ctx context.Context, h Request) (*TranscriptResult, error) {
	if err := hk.identify(ctx, &h); err != nil {
		return nil, err
	}
	if strings.TrimSpace(h.Transcript) == "" {
		return nil, core.Invalid("transcript", "transcript is required (its text: the server never reads transcript_path)")
	}
	if h.SessionKey == "" {
		return nil, core.Invalid("session_id", "a transcript needs the session it belongs to: session_id")
	}
	return hk.learnTranscript(ctx, h)
}

// learnTranscript normalizes h's transcript, stores it and queues its
// learning.
func (hk *Hooks) learnTranscript(ctx context.Context, h Request) (*TranscriptResult, error) {
	tr, err := text.NormalizeTranscript(strings.NewReader(h.Transcript), hk.cfg.Hooks.TranscriptMaxChars)
	if err != nil {
		return nil, err
	}
	res := &TranscriptResult{SessionKey: h.SessionKey, Warning: strings.Join(nonEmpty(h.TranscriptWarning, tr.Warning()), "; ")}
	res.TranscriptChars, res.JobID, err = hk.sessions.Learn(ctx, h.ref(), tr, h.TranscriptWarning)
	if err != nil {
		return nil, err
	}
	res.Queued = res.JobID != ""
	return res, nil
}
