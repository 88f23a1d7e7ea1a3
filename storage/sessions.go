package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/cairnmem/cairn/storage/dialect"
)

// Agent sessions seen by the hooks: sessions (one row per session key),
// session_injections (which memories were injected at which prompt) and
// session_transcripts (the transcript stored at session end).

const upsertSessionQuery = `INSERT INTO sessions (key, harness, project, started_at) VALUES (?, ?, NULLIF(?, ''), ?)
	ON CONFLICT(key) DO UPDATE SET project = COALESCE(sessions.project, excluded.project)`

// UpsertSession records session key as started now, unless it exists; an
// existing session without a project takes project.
func UpsertSession(ctx context.Context, q Querier, key, harness, project, now string) error {
	_, err := q.ExecContext(ctx, upsertSessionQuery, key, harness, project, now)
	return err
}

const bumpSessionPromptQuery = `UPDATE sessions SET prompt_count = prompt_count + 1, last_prompt_at = ?
	WHERE key = ? RETURNING prompt_count`

// BumpSessionPrompt counts one more prompt in session key and returns the
// new prompt count (the prompt's number).
func BumpSessionPrompt(ctx context.Context, q Querier, key, now string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, bumpSessionPromptQuery, now, key).Scan(&n)
	return n, err
}

const endSessionQuery = `UPDATE sessions SET ended_at = ?, end_reason = NULLIF(?, '') WHERE key = ?`

// EndSession marks session key ended now, with reason when not empty.
func EndSession(ctx context.Context, q Querier, key, reason, now string) error {
	_, err := q.ExecContext(ctx, endSessionQuery, now, reason, key)
	return err
}

const sessionProjectQuery = `SELECT project FROM sessions WHERE key = ?`

// SessionProject returns the project of session key ("" when it has
// none), or ErrNotFound.
func SessionProject(ctx context.Context, q Querier, key string) (string, error) {
	var project sql.NullString
	err := q.QueryRowContext(ctx, sessionProjectQuery, key).Scan(&project)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return project.String, err
}

const insertInjectionQuery = `INSERT INTO session_injections (session_key, memory_id, injected_at, prompt_no)
	VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`

// RecordInjections records that the memories ids were injected into
// session key at prompt promptNo (0 for the session start). A memory
// already recorded for the session keeps its first record.
func RecordInjections(ctx context.Context, q Querier, key string, promptNo int, now string, ids ...string) error {
	for _, id := range ids {
		if _, err := q.ExecContext(ctx, insertInjectionQuery, key, id, now, promptNo); err != nil {
			return err
		}
	}
	return nil
}

const injectedSinceQuery = `SELECT memory_id FROM session_injections
	WHERE session_key = ? AND prompt_no > ?`

// InjectedSince returns the memories injected into session key at prompts
// numbered above afterPrompt.
func InjectedSince(ctx context.Context, q Querier, key string, afterPrompt int) ([]string, error) {
	return Strings(ctx, q, injectedSinceQuery, key, afterPrompt)
}

var insertAnswerQuery = dialect.SQL(`INSERT INTO session_injections (session_key, memory_id, injected_at, prompt_no, about)
	VALUES (?, ?, ?, ?, ?) ON CONFLICT(session_key, memory_id, prompt_no) DO UPDATE SET about = %s`,
	dialect.Greatest("session_injections.about", "excluded.about"))

// RecordPromptInjections records that the memories ids were injected into
// session key at prompt promptNo, about[i] saying whether the prompt was
// about ids[i] (it was given as an answer, not only offered).
func RecordPromptInjections(ctx context.Context, q Querier, key string, promptNo int, now string, ids []string, about []bool) error {
	for i, id := range ids {
		if _, err := q.ExecContext(ctx, insertAnswerQuery.For(q), key, id, now, promptNo, i < len(about) && about[i]); err != nil {
			return err
		}
	}
	return nil
}

const recentInjectionsQuery = `SELECT memory_id, max(about) FROM session_injections
	WHERE session_key = ? AND prompt_no > ? GROUP BY memory_id`

// RecentInjections returns the memories injected into session key at
// prompts numbered above afterPrompt (session start is prompt 0), each
// with whether it was injected as an answer to one of them.
func RecentInjections(ctx context.Context, q Querier, key string, afterPrompt int) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, recentInjectionsQuery, key, afterPrompt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		var about bool
		if err := rows.Scan(&id, &about); err != nil {
			return nil, err
		}
		out[id] = about
	}
	return out, rows.Err()
}

const clearInjectionsQuery = `DELETE FROM session_injections WHERE session_key = ?`

// ClearInjections forgets what was injected into session key (after a
// compaction the agent no longer holds it).
func ClearInjections(ctx context.Context, q Querier, key string) error {
	_, err := q.ExecContext(ctx, clearInjectionsQuery, key)
	return err
}

// Transcript is one row of session_transcripts.
type Transcript struct {
	SessionKey  string
	Content     string
	Format      string
	Harness     string
	Project     string // "" is stored as NULL
	SourceBytes int64
	Truncated   bool
	CreatedAt   string
	// Warning says what of the transcript could not be read ("" when all
	// of it was).
	Warning string
}

const saveTranscriptQuery = `INSERT INTO session_transcripts
	(session_key, content, format, harness, project, source_bytes, truncated, created_at, warning)
	VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, NULLIF(?, ''))
	ON CONFLICT(session_key) DO UPDATE SET content = excluded.content, format = excluded.format,
		source_bytes = excluded.source_bytes, truncated = excluded.truncated, created_at = excluded.created_at,
		warning = excluded.warning`

// SaveTranscript stores a session's transcript, replacing the content of
// an earlier one (its harness and project stay).
func SaveTranscript(ctx context.Context, q Querier, t *Transcript) error {
	_, err := q.ExecContext(ctx, saveTranscriptQuery,
		t.SessionKey, t.Content, t.Format, t.Harness, t.Project, t.SourceBytes, t.Truncated, t.CreatedAt, t.Warning)
	return err
}

const transcriptContentQuery = `SELECT content, project FROM session_transcripts WHERE session_key = ?`

// TranscriptContent returns the transcript of session key with the project
// stored beside it ("" when none), or ErrNotFound.
func TranscriptContent(ctx context.Context, q Querier, key string) (content, project string, err error) {
	var proj sql.NullString
	err = q.QueryRowContext(ctx, transcriptContentQuery, key).Scan(&content, &proj)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", ErrNotFound
	}
	return content, proj.String, err
}

// Session is a session with its counts, as the sessions API lists it.
// Transcript, TranscriptFormat and Truncated are set by GetSession only.
type Session struct {
	Key              string
	Harness          string
	Project          string
	StartedAt        string
	EndedAt          string
	EndReason        string
	PromptCount      int
	LastPromptAt     string
	TranscriptChars  int
	Injections       int
	Transcript       *string // nil without a transcript
	TranscriptFormat string
	Truncated        bool
	// TranscriptWarning says what of the transcript could not be read.
	TranscriptWarning string
}

const sessionColumns = `s.key, s.harness, COALESCE(s.project, ''), s.started_at, COALESCE(s.ended_at, ''), COALESCE(s.end_reason, ''),
	s.prompt_count, COALESCE(s.last_prompt_at, ''), COALESCE(length(t.content), 0),
	(SELECT count(*) FROM session_injections i WHERE i.session_key = s.key)`

func scanSession(sc rowScanner, extra ...any) (*Session, error) {
	var s Session
	err := sc.Scan(append([]any{&s.Key, &s.Harness, &s.Project, &s.StartedAt, &s.EndedAt, &s.EndReason,
		&s.PromptCount, &s.LastPromptAt, &s.TranscriptChars, &s.Injections}, extra...)...)
	return &s, err
}

const listSessionsQuery = `SELECT ` + sessionColumns + ` FROM sessions s
	LEFT JOIN session_transcripts t ON t.session_key = s.key
	WHERE (? = '' OR s.project = ?) ORDER BY s.started_at DESC, s.key LIMIT ?`

// ListSessions lists up to limit sessions, newest first, of project (of
// every project when it is empty).
func ListSessions(ctx context.Context, q Querier, project string, limit int) ([]*Session, error) {
	rows, err := q.QueryContext(ctx, listSessionsQuery, project, project, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

const getSessionQuery = `SELECT ` + sessionColumns + `, t.content, t.format, t.truncated, t.warning
	FROM sessions s LEFT JOIN session_transcripts t ON t.session_key = s.key WHERE s.key = ?`

// GetSession returns session key with its transcript, or ErrNotFound.
func GetSession(ctx context.Context, q Querier, key string) (*Session, error) {
	var content, format, warning sql.NullString
	var truncated sql.NullBool
	s, err := scanSession(q.QueryRowContext(ctx, getSessionQuery, key), &content, &format, &truncated, &warning)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if content.Valid {
		s.Transcript = &content.String
	}
	s.TranscriptFormat, s.Truncated, s.TranscriptWarning = format.String, truncated.Bool, warning.String
	return s, nil
}

const transcriptExtractedQuery = `SELECT extracted_chars, extracted_hash FROM session_transcripts WHERE session_key = ?`

// TranscriptExtracted returns how much of a session's transcript was
// extracted before (its length in bytes) and the hash of that prefix.
func TranscriptExtracted(ctx context.Context, q Querier, key string) (chars int, hash string, err error) {
	err = q.QueryRowContext(ctx, transcriptExtractedQuery, key).Scan(&chars, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", ErrNotFound
	}
	return chars, hash, err
}

// SetTranscriptExtracted records that the first chars bytes of a session's
// transcript, hashing to hash, have been extracted.
func SetTranscriptExtracted(ctx context.Context, q Querier, key string, chars int, hash string) error {
	_, err := q.ExecContext(ctx, `UPDATE session_transcripts SET extracted_chars = ?, extracted_hash = ? WHERE session_key = ?`, chars, hash, key)
	return err
}

// SessionHead returns what the sessions row itself holds (project,
// harness, start, prompt count), without reading the transcript or
// counting injections as GetSession does; ErrNotFound when there is none.
func SessionHead(ctx context.Context, q Querier, key string) (*Session, error) {
	var s Session
	err := q.QueryRowContext(ctx, `SELECT key, harness, COALESCE(project, ''), started_at, prompt_count FROM sessions WHERE key = ?`, key).
		Scan(&s.Key, &s.Harness, &s.Project, &s.StartedAt, &s.PromptCount)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}
