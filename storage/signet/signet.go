// Package signet reads a Signet memory store (`~/.agents/memory/memories.db`,
// any schema version from the first to 30) so cairn can import it. It only
// reads: the file is opened read-only and nothing in it changes, so a
// Signet daemon may keep running while cairn reads it.
//
// Signet's schema grew column by column over 30 migrations; every column
// but id and content is optional here, read when the file has it.
//
// It lives under storage because it holds SQL (all of cairn's SQL is in
// storage/); it imports nothing of cairn's, and core/transfer maps what it
// reads into cairn's memories (transfer.ImportSignet).
package signet

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // the "sqlite3" database/sql driver
)

// Store is an open Signet database.
type Store struct {
	db   *sql.DB
	cols map[string]map[string]bool // table → its columns
}

// Open opens the Signet database at path read-only. It refuses a file
// that is not a SQLite database or has no memories table, naming the path.
func Open(ctx context.Context, path string) (*Store, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("signet database %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("signet database %s: not a regular file", path)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q["_pragma"] = []string{"busy_timeout(5000)", "query_only(1)"}
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, cols: map[string]map[string]bool{}}
	for _, t := range []string{"memories", "memory_history", "embeddings"} {
		cols, err := s.columns(ctx, t)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("signet database %s: %w", path, err)
		}
		s.cols[t] = cols
	}
	if !s.cols["memories"]["id"] || !s.cols["memories"]["content"] {
		db.Close()
		return nil, fmt.Errorf("signet database %s: no memories table with id and content (is this Signet's memories.db?)", path)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) columns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	return cols, rows.Err()
}

// SchemaVersion is the highest migration the file records (0 when it has
// no schema_migrations table).
func (s *Store) SchemaVersion(ctx context.Context) int {
	var v sql.NullInt64
	_ = s.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64)
}

// Memory is one row of Signet's memories table, as Signet stored it.
type Memory struct {
	ID, Type, Category, Content                string
	Confidence, Importance                     *float64
	SourceID, SourceType                       string
	Tags                                       []string
	Who, Why, Project                          string
	CreatedAt, UpdatedAt, UpdatedBy            string
	LastAccessed                               string
	AccessCount, Version, UpdateCount          int
	VectorClock                                string
	ManualOverride, Pinned, IsDeleted          bool
	DeletedAt                                  string
	ContentHash                                string
	IdempotencyKey, RuntimePath                string
	SourcePath, SourceSection                  string
	EmbeddingModel, ExtractionModel, SessionID string
	ExtractionStatus                           string
	Agent                                      string
}

// memoryFields maps each optional column to where it goes; id and content
// are always read.
var memoryFields = []string{"type", "category", "confidence", "importance", "source_id", "source_type",
	"tags", "who", "why", "project", "created_at", "updated_at", "updated_by", "last_accessed",
	"access_count", "vector_clock", "version", "manual_override", "pinned", "is_deleted", "deleted_at",
	"content_hash", "idempotency_key", "runtime_path", "source_path", "source_section",
	"embedding_model", "extraction_model", "session_id", "extraction_status", "update_count", "agent_id"}

// Memories calls fn for every row of the memories table, oldest first,
// deleted ones included (IsDeleted).
func (s *Store) Memories(ctx context.Context, fn func(*Memory) error) error {
	cols := []string{"id", "content"}
	for _, c := range memoryFields {
		if s.cols["memories"][c] {
			cols = append(cols, c)
		}
	}
	order := "rowid"
	if s.cols["memories"]["created_at"] {
		order = "created_at, rowid"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM memories ORDER BY `+order)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		m := &Memory{}
		for i, c := range cols {
			set(m, c, vals[i])
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return rows.Err()
}

func set(m *Memory, col string, v any) {
	str := asString(v)
	switch col {
	case "id":
		m.ID = str
	case "content":
		m.Content = str
	case "type":
		m.Type = str
	case "category":
		m.Category = str
	case "confidence":
		m.Confidence = asFloat(v)
	case "importance":
		m.Importance = asFloat(v)
	case "source_id":
		m.SourceID = str
	case "source_type":
		m.SourceType = str
	case "tags":
		m.Tags = ParseTags(str)
	case "who":
		m.Who = str
	case "why":
		m.Why = str
	case "project":
		m.Project = str
	case "created_at":
		m.CreatedAt = Time(str)
	case "updated_at":
		m.UpdatedAt = Time(str)
	case "updated_by":
		m.UpdatedBy = str
	case "last_accessed":
		m.LastAccessed = Time(str)
	case "access_count":
		m.AccessCount = asInt(v)
	case "vector_clock":
		m.VectorClock = str
	case "version":
		m.Version = asInt(v)
	case "update_count":
		m.UpdateCount = asInt(v)
	case "manual_override":
		m.ManualOverride = asInt(v) != 0
	case "pinned":
		m.Pinned = asInt(v) != 0
	case "is_deleted":
		m.IsDeleted = asInt(v) != 0
	case "deleted_at":
		m.DeletedAt = Time(str)
	case "content_hash":
		m.ContentHash = str
	case "idempotency_key":
		m.IdempotencyKey = str
	case "runtime_path":
		m.RuntimePath = str
	case "source_path":
		m.SourcePath = str
	case "source_section":
		m.SourceSection = str
	case "embedding_model":
		m.EmbeddingModel = str
	case "extraction_model":
		m.ExtractionModel = str
	case "session_id":
		m.SessionID = str
	case "extraction_status":
		m.ExtractionStatus = str
	case "agent_id":
		m.Agent = str
	}
}

// ParseTags reads Signet's tags column: a comma-separated list in the
// versions that wrote one, or a JSON array in those that wrote JSON.
func ParseTags(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return nil
	}
	if strings.HasPrefix(s, "[") {
		var arr []any
		if json.Unmarshal([]byte(s), &arr) == nil {
			var out []string
			for _, a := range arr {
				if t, ok := a.(string); ok && strings.TrimSpace(t) != "" {
					out = append(out, strings.TrimSpace(t))
				}
			}
			return out
		}
	}
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Time turns the timestamps Signet wrote into cairn's form (RFC 3339 in
// UTC with milliseconds): ISO strings from JavaScript, and the
// "YYYY-MM-DD HH:MM:SS" of SQLite's datetime('now') that its access
// tracking wrote. Anything else is kept as it was.
func Time(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05.000"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
	if ms, ok := epochMillis(s); ok {
		return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	return s
}

func epochMillis(s string) (int64, bool) {
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n < 1e11 || n > 1e14 {
		return 0, false
	}
	return n, true
}

// HistoryEvent is one row of Signet's memory_history.
type HistoryEvent struct {
	ID, MemoryID, Event    string
	OldContent, NewContent *string
	ChangedBy, ActorType   string
	Reason, Metadata       string
	SessionID, RequestID   string
	CreatedAt              string
}

// History calls fn for every history event, oldest first. A file without
// the table has none.
func (s *Store) History(ctx context.Context, fn func(*HistoryEvent) error) error {
	c := s.cols["memory_history"]
	if !c["id"] || !c["memory_id"] || !c["event"] {
		return nil
	}
	opt := func(col string) string {
		if c[col] {
			return col
		}
		return "NULL"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, memory_id, event, `+opt("old_content")+`, `+opt("new_content")+`, `+
		opt("changed_by")+`, `+opt("actor_type")+`, `+opt("reason")+`, `+opt("metadata")+`, `+opt("session_id")+`, `+
		opt("request_id")+`, `+opt("created_at")+` FROM memory_history ORDER BY `+opt("created_at")+`, rowid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h HistoryEvent
		var old, nw, by, at, reason, meta, sess, req, created sql.NullString
		if err := rows.Scan(&h.ID, &h.MemoryID, &h.Event, &old, &nw, &by, &at, &reason, &meta, &sess, &req, &created); err != nil {
			return err
		}
		if old.Valid {
			h.OldContent = &old.String
		}
		if nw.Valid {
			h.NewContent = &nw.String
		}
		h.ChangedBy, h.ActorType, h.Reason, h.Metadata = by.String, at.String, reason.String, meta.String
		h.SessionID, h.RequestID, h.CreatedAt = sess.String, req.String, Time(created.String)
		if err := fn(&h); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Embedding is one of Signet's stored vectors (float32, little-endian).
type Embedding struct {
	ContentHash string
	Dimensions  int
	Vector      []byte
}

// Embeddings calls fn for every stored vector. Signet does not record
// which model made them.
func (s *Store) Embeddings(ctx context.Context, fn func(*Embedding) error) error {
	c := s.cols["embeddings"]
	if !c["content_hash"] || !c["vector"] || !c["dimensions"] {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT content_hash, dimensions, vector FROM embeddings`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e Embedding
		if err := rows.Scan(&e.ContentHash, &e.Dimensions, &e.Vector); err != nil {
			return err
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountEmbeddings is how many vectors the file holds.
func (s *Store) CountEmbeddings(ctx context.Context) int {
	if !s.cols["embeddings"]["content_hash"] {
		return 0
	}
	var n int
	_ = s.db.QueryRowContext(ctx, `SELECT count(*) FROM embeddings`).Scan(&n)
	return n
}

func asString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return fmt.Sprint(x)
	case float64:
		return fmt.Sprint(x)
	default:
		return fmt.Sprint(x)
	}
}

func asFloat(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string:
		if _, err := fmt.Sscan(x, &f); err != nil {
			return nil
		}
	default:
		return nil
	}
	return &f
}

func asInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	case string:
		var n int
		fmt.Sscan(x, &n)
		return n
	}
	return 0
}
