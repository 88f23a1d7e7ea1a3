package transfer_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/signet"
)

// signetV30 is the part of Signet 0.58.1's schema (version 30) the import
// reads, column for column as Signet's migrations leave it.
const signetV30 = `
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT, checksum TEXT);
INSERT INTO schema_migrations VALUES (30, '2026-11-01T00:00:00.000Z', 'x');
CREATE TABLE memories (id TEXT PRIMARY KEY, type TEXT NOT NULL DEFAULT 'fact', category TEXT, content TEXT NOT NULL,
	confidence REAL DEFAULT 1.0, importance REAL DEFAULT 0.5, source_id TEXT, source_type TEXT, tags TEXT, who TEXT,
	why TEXT, project TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, updated_by TEXT NOT NULL DEFAULT 'system',
	last_accessed TEXT, access_count INTEGER DEFAULT 0, vector_clock TEXT NOT NULL DEFAULT '{}', version INTEGER DEFAULT 1,
	manual_override INTEGER DEFAULT 0, pinned INTEGER DEFAULT 0, content_hash TEXT, normalized_content TEXT,
	is_deleted INTEGER DEFAULT 0, deleted_at TEXT, extraction_status TEXT DEFAULT 'none', embedding_model TEXT,
	extraction_model TEXT, update_count INTEGER DEFAULT 0, idempotency_key TEXT, runtime_path TEXT,
	source_path TEXT, source_section TEXT);
CREATE TABLE memory_history (id TEXT PRIMARY KEY, memory_id TEXT NOT NULL, event TEXT NOT NULL, old_content TEXT,
	new_content TEXT, changed_by TEXT NOT NULL, reason TEXT, metadata TEXT, created_at TEXT NOT NULL, actor_type TEXT,
	session_id TEXT, request_id TEXT);
CREATE TABLE embeddings (id TEXT PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE, vector BLOB NOT NULL,
	dimensions INTEGER NOT NULL, source_type TEXT NOT NULL, source_id TEXT NOT NULL, chunk_text TEXT NOT NULL,
	created_at TEXT NOT NULL);
`

func makeSignetDB(t *testing.T, ddl string, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memories.db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range append([]string{ddl}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	return path
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func openSignet(t *testing.T, path string) *signet.Store {
	t.Helper()
	src, err := signet.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

var importer = core.Actor{Name: "signet-import", Type: core.ActorOperator}

func TestImportSignetKeepsEveryFieldAndHistoryAndIsIdempotent(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("word ", 20000)
	// Deleted an hour ago: within cairn's recover window.
	recently := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	path := makeSignetDB(t, signetV30,
		`INSERT INTO memories (id, type, content, importance, tags, who, project, created_at, updated_at, pinned, source_type, access_count, last_accessed, version, content_hash)
			VALUES ('11111111-0000-4000-8000-000000000001', 'rule', 'rotate the payments signing key every 30 days', 0.9, 'security,payments',
			'alice', '/home/dev/atlas', '2026-10-01T08:00:00.000Z', '2026-10-02T09:00:00.000Z', 1, 'manual', 4, '2026-10-03 10:11:12', 3, 'h1')`,
		`INSERT INTO memories (id, content, importance, tags, created_at, updated_at, is_deleted, deleted_at)
			VALUES ('11111111-0000-4000-8000-000000000002', 'the ingest dashboard lives at grafana/d/ingest-1007', NULL, NULL,
			'2026-10-04T08:00:00.000Z', '2026-10-05T08:00:00.000Z', 1, '`+recently+`')`,
		`INSERT INTO memories (id, content, tags, created_at, updated_at) VALUES ('11111111-0000-4000-8000-000000000003', '   ', NULL, '2026-10-06T08:00:00.000Z', '2026-10-06T08:00:00.000Z')`,
		`INSERT INTO memories (id, content, created_at, updated_at) VALUES ('11111111-0000-4000-8000-000000000004', '`+long+`', '2026-10-06T08:00:00.000Z', '2026-10-06T08:00:00.000Z')`,
		`INSERT INTO memories (id, content, importance, created_at, updated_at) VALUES ('11111111-0000-4000-8000-000000000005', 'staging postgres listens on 5433', 7, '2026-10-07T08:00:00.000Z', '2026-10-07T08:00:00.000Z')`,
		`INSERT INTO memory_history VALUES ('h-1', '11111111-0000-4000-8000-000000000001', 'updated', 'rotate the key every 60 days',
			'rotate the payments signing key every 30 days', 'daemon', 'fact changed', '{"changedFields":["content"]}', '2026-10-02T09:00:00.000Z', 'operator', NULL, NULL)`,
		`INSERT INTO memory_history VALUES ('h-2', '11111111-0000-4000-8000-000000000002', 'deleted', NULL, NULL, 'daemon', 'stale', 'not json', '2026-10-05T08:00:00.000Z', 'operator', NULL, NULL)`,
		`INSERT INTO memory_history VALUES ('h-3', 'system', 'none', NULL, NULL, 'repair', 'audit', NULL, '2026-10-05T08:00:00.000Z', 'operator', NULL, NULL)`,
	)
	before := fileSum(t, path)
	ap := apitest.NewApp(t, nil)
	svc := ap.Service

	rep, err := ap.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{}, importer)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != 30 || rep.Memories.Imported != 3 || rep.Tombstones != 1 ||
		rep.Skipped["empty content"] != 1 || rep.Skipped["content over guardrails.max_remember_chars"] != 1 ||
		rep.Adjusted["importance clamped to 0..1"] != 1 {
		t.Fatalf("report: %+v", rep)
	}
	if rep.History.Imported != 2 || rep.History.Orphans != 1 {
		t.Fatalf("history: %+v", rep.History)
	}

	m, err := svc.Get(ctx, "11111111-0000-4000-8000-000000000001", true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != "rule" || !m.Pinned || m.Importance != 0.9 || m.Who != "alice" || m.Project != "/home/dev/atlas" ||
		strings.Join(m.Tags, ",") != "security,payments" || m.CreatedAt != "2026-10-01T08:00:00.000Z" ||
		m.LastAccessed != "2026-10-03T10:11:12.000Z" || m.AccessCount != 4 || m.Version != 3 {
		t.Fatalf("imported memory: %+v", m)
	}
	gone, err := svc.Get(ctx, "11111111-0000-4000-8000-000000000002", true)
	if err != nil || !gone.IsDeleted || gone.Importance != 0.5 {
		t.Fatalf("deleted memory: %+v %v", gone, err)
	}
	if _, err := svc.Recover(ctx, core.RecoverInput{ID: gone.ID, Reason: "restored after the move"}, importer); err != nil {
		t.Fatalf("a memory deleted in Signet is recoverable in cairn: %v", err)
	}
	hist, err := storage.ListHistory(ctx, svc.DB().Reader(), storage.HistoryFilter{MemoryID: m.ID, Oldest: true}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, h := range hist {
		events = append(events, h.Event+":"+h.Reason)
	}
	if strings.Join(events, " ") != "updated:fact changed created:import" {
		t.Fatalf("history of the imported memory: %v", events)
	}
	if hist[0].OldContent == nil || *hist[0].OldContent != "rotate the key every 60 days" || hist[0].Metadata != `{"changedFields":["content"]}` {
		t.Fatalf("updated event: %+v", hist[0])
	}

	again, err := ap.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{}, importer)
	if err != nil {
		t.Fatal(err)
	}
	if again.Memories.Imported != 0 || again.Memories.Existing != 3 || again.Tombstones != 0 || again.History.Imported != 0 || again.History.Existing != 2 {
		t.Fatalf("a second run adds nothing: %+v %+v", again.Memories, again.History)
	}
	if fileSum(t, path) != before {
		t.Fatal("the Signet file changed")
	}
}

func signetVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f*3)) // Signet's are not always unit length
	}
	return b
}

func TestImportSignetKeepsVectorsOnlyOfTheSameModel(t *testing.T) {
	ctx := context.Background()
	emb := apitest.Builtin(t)
	content := "the deploy pipeline runs on buildkite agents in eu-west-1"
	vecs, err := emb.Embed(ctx, []string{content})
	if err != nil {
		t.Fatal(err)
	}
	path := makeSignetDB(t, signetV30,
		`INSERT INTO memories (id, content, created_at, updated_at, content_hash) VALUES ('22222222-0000-4000-8000-000000000001', '`+content+`', '2026-10-01T08:00:00.000Z', '2026-10-01T08:00:00.000Z', 'sig-hash')`)
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO embeddings VALUES ('e1', 'sig-hash', ?, ?, 'memory', 'x', 'x', 't')`, signetVector(vecs[0]), len(vecs[0])); err != nil {
		t.Fatal(err)
	}
	db.Close()

	other := apitest.NewApp(t, emb)
	rep, err := other.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{EmbeddingModel: "nomic-embed-text"}, importer)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embeddings.Imported != 0 || rep.Embeddings.Skipped != 1 || !strings.Contains(rep.Embeddings.Why, "nomic-embed-text") {
		t.Fatalf("another model's vectors are not kept: %+v", rep.Embeddings)
	}

	ap := apitest.NewApp(t, emb)
	svc := ap.Service
	rep, err = ap.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{EmbeddingModel: emb.Model()}, importer)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embeddings.Imported != 1 {
		t.Fatalf("the same model's vectors are kept: %+v", rep.Embeddings)
	}
	n, err := ap.Vectors.CountPendingEmbeddings(ctx)
	if err != nil || n != 0 {
		t.Fatalf("an imported vector leaves nothing to embed: %d %v", n, err)
	}
	res := apitest.Recall(t, svc, core.RecallInput{Query: "which CI agents deploy", Limit: 3})
	if len(res.Results) == 0 || res.Results[0].ID != "22222222-0000-4000-8000-000000000001" {
		t.Fatalf("recall over the imported vector: %+v", res.Results)
	}
}

func TestImportSignetReadsAnOldSchemaAndRefusesOtherFiles(t *testing.T) {
	ctx := context.Background()
	// Signet's first schema: no content_hash, is_deleted or pinned; tags
	// as JSON; access times from SQLite's datetime('now').
	path := makeSignetDB(t, `CREATE TABLE memories (id TEXT PRIMARY KEY, type TEXT, content TEXT NOT NULL, tags TEXT,
		created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_accessed TEXT)`,
		`INSERT INTO memories VALUES ('33333333-0000-4000-8000-000000000001', 'fact', 'we chose sqlc over gorm', '["db", "go"]', '2025-01-02 03:04:05', '2025-01-02 03:04:05', NULL)`)
	ap := apitest.NewApp(t, nil)
	svc := ap.Service
	rep, err := ap.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{}, importer)
	if err != nil || rep.Memories.Imported != 1 || rep.SchemaVersion != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	m, err := svc.Get(ctx, "33333333-0000-4000-8000-000000000001", false)
	if err != nil || strings.Join(m.Tags, ",") != "db,go" || m.CreatedAt != "2025-01-02T03:04:05.000Z" {
		t.Fatalf("%+v %v", m, err)
	}

	notDB := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notDB, []byte("hello, this is not a database at all, just some text"), 0o600)
	if _, err := signet.Open(ctx, notDB); err == nil || !strings.Contains(err.Error(), notDB) {
		t.Fatalf("a text file: %v", err)
	}
	other := makeSignetDB(t, `CREATE TABLE notes (id TEXT)`)
	if _, err := signet.Open(ctx, other); err == nil || !strings.Contains(err.Error(), "no memories table") {
		t.Fatalf("a database without memories: %v", err)
	}
	if _, err := signet.Open(ctx, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a folder: %v", err)
	}
}

func TestImportSignetDryRunWritesNothing(t *testing.T) {
	ctx := context.Background()
	path := makeSignetDB(t, signetV30,
		`INSERT INTO memories (id, content, created_at, updated_at) VALUES ('44444444-0000-4000-8000-000000000001', 'a fact', 't', 't')`)
	ap := apitest.NewApp(t, nil)
	svc := ap.Service
	rep, err := ap.Transfer.ImportSignet(ctx, openSignet(t, path), transfer.SignetOptions{DryRun: true}, importer)
	if err != nil || rep.Memories.Total != 1 || rep.Memories.Imported != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := svc.Get(ctx, "44444444-0000-4000-8000-000000000001", true); err == nil {
		t.Fatal("a dry run wrote a memory")
	}
}
