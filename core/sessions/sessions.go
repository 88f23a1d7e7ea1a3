package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Memories is what sessions need of the memory lifecycle (core.Service
// has it): secrets redacted from what they store, and the kill switch.
type Memories interface {
	Redact(body string) string
	CheckFrozen() error
	// TermDocCounts: how many memories hold each term (FTS5 on SQLite, the
	// keyword index on PostgreSQL).
	TermDocCounts(ctx context.Context, terms []string) (map[string]int, error)
}

// Sessions records the agent sessions of one store and their continuity.
type Sessions struct {
	db       *storage.DB
	cfg      config.Config
	mem      Memories
	feedback *ranker.Feedback
	now      func() time.Time
	log      *slog.Logger
	activity activities // what each session did since its last checkpoint (continuity.go)
}

// New returns the sessions of db configured by cfg; mem redacts and
// says whether mutations are frozen, feedback follows each session's
// score, now is the clock and log the logger.
func New(db *storage.DB, cfg config.Config, mem Memories, feedback *ranker.Feedback, now func() time.Time, log *slog.Logger) *Sessions {
	return &Sessions{db: db, cfg: cfg, mem: mem, feedback: feedback, now: now, log: log,
		activity: activities{sessions: map[string]*activity{}}}
}

// timestamp is the clock's now in the store's time format.
func (s *Sessions) timestamp() string { return storage.FormatTime(s.now()) }

// Ref names a session: its key, and the harness and project it runs in
// (as a hook says them).
type Ref struct {
	Key     string
	Harness string
	Project string
}

// upsert records the session (first seen, or seen again).
func upsert(ctx context.Context, tx storage.Tx, ref Ref, now string) error {
	return storage.UpsertSession(ctx, tx, ref.Key, ref.Harness, ref.Project, now)
}

// Prompted records a prompt of the session and returns its number in the
// session.
func (s *Sessions) Prompted(ctx context.Context, ref Ref) (int, error) {
	promptNo := 0
	err := s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := upsert(ctx, tx, ref, s.timestamp()); err != nil {
			return err
		}
		var err error
		promptNo, err = storage.BumpSessionPrompt(ctx, tx, ref.Key, s.timestamp())
		return err
	})
	return promptNo, err
}

// RecordStart records a session's start: the session, the memories
// injected (ids) and what it was offered (source ranker.SourceSessionStart).
// Without a session key there is nothing to record.
func (s *Sessions) RecordStart(ctx context.Context, ref Ref, ids []string, offers []*storage.SessionMemory) error {
	if ref.Key == "" {
		return nil
	}
	now := s.timestamp()
	return s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := upsert(ctx, tx, ref, now); err != nil {
			return err
		}
		if err := storage.RecordInjections(ctx, tx, ref.Key, 0, now, ids...); err != nil {
			return err
		}
		return s.offerMemories(ctx, tx, ref.Key, ranker.SourceSessionStart, offers, now)
	})
}

// RecordPrompt records what prompt promptNo of session key got: the
// memories injected (ids, about[i] saying whether the prompt was about
// ids[i]) and what it was offered (source ranker.SourcePrompt).
func (s *Sessions) RecordPrompt(ctx context.Context, key string, promptNo int, ids []string, about []bool, offers []*storage.SessionMemory) error {
	now := s.timestamp()
	return s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := storage.RecordPromptInjections(ctx, tx, key, promptNo, now, ids, about); err != nil {
			return err
		}
		return s.offerMemories(ctx, tx, key, ranker.SourcePrompt, offers, now)
	})
}

// ClearInjections forgets what session key was injected (after a
// compaction the context no longer holds it).
func (s *Sessions) ClearInjections(ctx context.Context, key string) error {
	return s.db.WriteTx(ctx, func(tx storage.Tx) error {
		return storage.ClearInjections(ctx, tx, key)
	})
}

// End records the end of a session (reason as the harness gave it) and,
// when tr is not nil, stores its transcript (with warning, what the
// sender could not read of it, beside tr's own) and queues its
// extraction. It returns the characters stored and the extraction job's
// id.
func (s *Sessions) End(ctx context.Context, ref Ref, reason string, tr *text.Transcript, warning string) (chars int, jobID string, err error) {
	now := s.timestamp()
	err = s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := upsert(ctx, tx, ref, now); err != nil {
			return err
		}
		if err := storage.EndSession(ctx, tx, ref.Key, reason, now); err != nil {
			return err
		}
		if tr == nil {
			return nil
		}
		var err error
		chars, jobID, err = s.saveTranscript(ctx, tx, ref, tr, warning, now)
		return err
	})
	return chars, jobID, err
}

// Learn stores the transcript of a session so far, without ending it,
// and queues the learning of what it added since the last time (at a
// compaction, and periodically in a long session): the extraction reads
// only the turns after what an earlier job read. warning is what the
// sender could not read of it. It returns the characters stored and the
// job's id ("" when the transcript is empty).
func (s *Sessions) Learn(ctx context.Context, ref Ref, tr *text.Transcript, warning string) (chars int, jobID string, err error) {
	if err := s.mem.CheckFrozen(); err != nil {
		return 0, "", err
	}
	if ref.Key == "" {
		return 0, "", core.Invalid("session_id", "a transcript needs the session it belongs to: session_id")
	}
	now := s.timestamp()
	err = s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := upsert(ctx, tx, ref, now); err != nil {
			return err
		}
		var err error
		chars, jobID, err = s.saveTranscript(ctx, tx, ref, tr, warning, now)
		return err
	})
	return chars, jobID, err
}

// saveTranscript stores a session's transcript (redacted) and queues its
// extraction (one live job per session). It returns the characters
// stored and the job's id.
func (s *Sessions) saveTranscript(ctx context.Context, tx storage.Tx, ref Ref, tr *text.Transcript, warning, now string) (int, string, error) {
	content := s.mem.Redact(tr.Text)
	warn := strings.Join(nonEmpty(strings.TrimSpace(warning), tr.Warning()), "; ")
	if err := storage.SaveTranscript(ctx, tx, &storage.Transcript{SessionKey: ref.Key, Content: content,
		Format: tr.Format, Harness: ref.Harness, Project: ref.Project, SourceBytes: tr.SourceBytes,
		Truncated: tr.Truncated, CreatedAt: now, Warning: text.Truncate(warn, 1000)}); err != nil {
		return 0, "", err
	}
	if strings.TrimSpace(content) == "" {
		return 0, "", nil
	}
	// The pipeline worker extracts facts from the transcript
	// (ProcessExtractJob); one live job per session.
	payload, _ := json.Marshal(map[string]string{"session_key": ref.Key, "harness": ref.Harness, "project": ref.Project})
	jobID, err := storage.EnqueueJobOnce(ctx, tx, core.NewID(), jobs.SessionExtract, string(payload), s.cfg.PipelineV2.MaxAttempts, now)
	return text.CharCount(content), jobID, err
}

// RememberTranscript stores the transcript sent with a remember
// (docs/design/pipeline.md, "Session transcripts") as session end would,
// without ending the session: the session is recorded, the transcript saved
// and its extraction queued. It returns the characters stored.
func (s *Sessions) RememberTranscript(ctx context.Context, ref Ref, transcript string) (int, error) {
	if err := s.mem.CheckFrozen(); err != nil {
		return 0, err
	}
	if ref.Key == "" {
		return 0, core.Invalid("session_id", "a transcript needs the session it belongs to: session_id")
	}
	tr, err := text.NormalizeTranscript(strings.NewReader(transcript), s.cfg.Hooks.TranscriptMaxChars)
	if err != nil {
		return 0, err
	}
	ref.Harness = core.OrDefault(ref.Harness, "api")
	now := s.timestamp()
	var n int
	err = s.db.WriteTx(ctx, func(tx storage.Tx) error {
		if err := upsert(ctx, tx, ref, now); err != nil {
			return err
		}
		var err error
		n, _, err = s.saveTranscript(ctx, tx, ref, tr, "", now)
		return err
	})
	return n, err
}

// nonEmpty is vs less its empty strings.
func nonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Info is a session as GET /api/sessions shows it.
type Info struct {
	Key             string `json:"key"`
	Harness         string `json:"harness"`
	Project         string `json:"project,omitempty"`
	StartedAt       string `json:"started_at"`
	EndedAt         string `json:"ended_at,omitempty"`
	EndReason       string `json:"end_reason,omitempty"`
	PromptCount     int    `json:"prompt_count"`
	LastPromptAt    string `json:"last_prompt_at,omitempty"`
	TranscriptChars int    `json:"transcript_chars"`
	Injections      int    `json:"injections"`
	// Set by GET /api/sessions/{key} only.
	Transcript       *string `json:"transcript,omitempty"`
	TranscriptFormat string  `json:"transcript_format,omitempty"`
	Truncated        bool    `json:"transcript_truncated,omitempty"`
	// TranscriptWarning says what of the transcript could not be read
	// (the learning read the rest).
	TranscriptWarning string `json:"transcript_warning,omitempty"`
	// Continuity is the session's checkpoints, what it was offered and
	// used, and its score (GET /api/sessions/{key} only).
	Continuity *Continuity `json:"continuity,omitempty"`
}

// infoOf is the API view of a stored session.
func infoOf(st *storage.Session) *Info {
	return &Info{Key: st.Key, Harness: st.Harness, Project: st.Project, StartedAt: st.StartedAt,
		EndedAt: st.EndedAt, EndReason: st.EndReason, PromptCount: st.PromptCount, LastPromptAt: st.LastPromptAt,
		TranscriptChars: st.TranscriptChars, Injections: st.Injections,
		Transcript: st.Transcript, TranscriptFormat: st.TranscriptFormat, Truncated: st.Truncated, TranscriptWarning: st.TranscriptWarning}
}

// List lists sessions, newest first, optionally of one project.
func (s *Sessions) List(ctx context.Context, project string, limit int) ([]*Info, error) {
	sessions, err := storage.ListSessions(ctx, s.db.Reader(), project, limit)
	if err != nil {
		return nil, err
	}
	out := make([]*Info, 0, len(sessions))
	for _, st := range sessions {
		out = append(out, infoOf(st))
	}
	return out, nil
}

// Get returns one session with its transcript and continuity.
func (s *Sessions) Get(ctx context.Context, key string) (*Info, error) {
	st, err := storage.GetSession(ctx, s.db.Reader(), key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &core.Error{Code: core.CodeNotFound, Message: "no session " + key}
	}
	if err != nil {
		return nil, err
	}
	info := infoOf(st)
	if info.Continuity, err = s.continuity(ctx, key); err != nil {
		return nil, err
	}
	return info, nil
}
