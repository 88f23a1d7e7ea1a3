package ops_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/ops"

	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// hashEmbedder is a real, deterministic embedder: each word of a text adds
// to one of dim buckets chosen by its FNV hash, so texts sharing words get
// close vectors. It is instant, so -race stays fast. When hold is set,
// every call waits for it to be closed (after signalling entered).
type hashEmbedder struct {
	model   string
	dim     int
	mu      sync.Mutex
	calls   int
	texts   int
	hold    chan struct{}
	entered chan struct{}
}

func (h *hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.mu.Lock()
	h.calls++
	h.texts += len(texts)
	hold, entered := h.hold, h.entered
	h.mu.Unlock()
	if hold != nil {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.dim)
		v[0] = 0.01
		for _, w := range strings.Fields(strings.ToLower(t)) {
			f := fnv.New32a()
			f.Write([]byte(w))
			v[f.Sum32()%uint32(h.dim)]++
		}
		out[i] = v
	}
	return out, nil
}
func (h *hashEmbedder) Model() string   { return h.model }
func (h *hashEmbedder) Dimensions() int { return h.dim }

func repair(t *testing.T, e *apitest.Env, action string, actor core.Actor, opts ops.RepairOptions) *ops.RepairResult {
	t.Helper()
	res, err := e.App.Ops.Repair(context.Background(), action, actor, opts)
	if err != nil {
		t.Fatalf("repair %s: %v", action, err)
	}
	return res
}

func wantCode(t *testing.T, err error, status int, code string) *core.Error {
	t.Helper()
	var ce *core.Error
	if !errors.As(err, &ce) || httpapi.StatusOf(ce.Code) != status || ce.Code != code {
		t.Fatalf("error = %v (%+v), want %d %s", err, ce, status, code)
	}
	return ce
}

var operator = core.Actor{Name: "alice", Type: core.ActorOperator}

func ftsMatches(t *testing.T, e *apitest.Env, word string) int {
	t.Helper()
	return e.Count(t, `SELECT count(*) FROM memories_fts f JOIN memories m ON m.rid = f.rowid WHERE memories_fts MATCH ?`, word)
}

func TestRepairCheckFTSDetectsAndRebuilds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt string
	}{
		// The delete command with content the row never had: the document
		// is dropped and the terms it "removes" go negative.
		{"bogus delete", `INSERT INTO memories_fts(memories_fts, rowid, content) SELECT 'delete', rid, 'entirely different words here' FROM memories WHERE content LIKE '%walrus%'`},
		// A document missing from the index (its terms left behind).
		{"docsize row lost", `DELETE FROM memories_fts_docsize WHERE id = (SELECT rid FROM memories WHERE content LIKE '%walrus%')`},
		// Damaged index pages.
		{"data pages lost", `DELETE FROM memories_fts_data WHERE id > 10`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apitest.NewStoreEnv(t, apitest.NoEmbed)
			e.MustID(t, "The walrus cache keeps session tokens for ten minutes.")
			e.MustID(t, "The narwhal queue retries webhooks with exponential backoff.")
			forget(t, e, e.MustID(t, "The pelican report was retired last quarter."))
			ok := repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{})
			if !ok.Success || ok.Affected != 0 || !strings.Contains(ok.Message, "consistent") {
				t.Fatalf("healthy index: %+v", ok)
			}
			exec(t, e, tc.corrupt)
			check := repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{})
			if check.Success || check.Affected < 1 || !strings.Contains(check.Message, "mismatch") {
				t.Fatalf("corrupted index passed the check: %+v", check)
			}
			dry := repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{Repair: true, DryRun: true})
			if dry.Success || !strings.Contains(dry.Message, "would rebuild") {
				t.Fatalf("dry run: %+v", dry)
			}
			fixed := repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{Repair: true})
			if !fixed.Success || !strings.Contains(fixed.Message, "rebuilt") {
				t.Fatalf("rebuild: %+v", fixed)
			}
			assertFTS(t, e)
			if ftsMatches(t, e, "walrus") != 1 || ftsMatches(t, e, "narwhal") != 1 || ftsMatches(t, e, "pelican") != 1 {
				t.Fatal("search does not find the rows after the rebuild")
			}
			res, err := e.Svc.Recall(context.Background(), core.RecallInput{Query: "walrus cache", NoTracking: true})
			if err != nil || len(res.Results) != 1 {
				t.Fatalf("recall after rebuild = %+v, %v", res, err)
			}
			if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND json_extract(metadata, '$.repairAction') = 'check-fts'`); n != 3 {
				t.Fatalf("check-fts audit rows = %d, want 3 (dry run not audited)", n)
			}
		})
	}
}

func TestRepairRequeueTenThousandDeadInBatches(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	exec(t, e, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
		INSERT INTO memory_jobs (id, job_type, status, attempts, max_attempts, error, created_at, updated_at)
		SELECT 'job-' || i, 'extract', 'dead', 3, 3, 'boom', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z' FROM n`)
	total := 0
	for run := 0; ; run++ {
		res := repair(t, e, ops.RepairRequeueDead, operator, ops.RepairOptions{BatchSize: 2000})
		if res.Affected > 2000 {
			t.Fatalf("run %d requeued %d, more than the batch", run, res.Affected)
		}
		if res.Affected == 0 {
			break
		}
		total += res.Affected
		if run > 10 {
			t.Fatal("requeue does not converge")
		}
	}
	if total != 10000 || e.Count(t, `SELECT count(*) FROM memory_jobs WHERE status = 'pending' AND attempts = 0`) != 10000 {
		t.Fatalf("requeued %d", total)
	}
}

func TestRepairReEmbedMissingStaleAndFullSweep(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	if res := repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{}); res.Success || !strings.Contains(res.Message, "no embedding provider") {
		t.Fatalf("without an embedder: %+v", res)
	}
	v1 := &hashEmbedder{model: "hash-v1", dim: 32}
	e.WithEmbedder(v1)
	var ids []string
	for i, s := range []string{"billing", "deploy", "search", "backup", "metrics", "alerts"} {
		ids = append(ids, e.MustID(t, fmt.Sprintf("Note %d: the %s service runs on its own host.", i, s)))
	}
	// The same content in two projects shares one vector.
	ids = append(ids, e.MustID(t, "Shared fact across projects.", "project", "p1"), e.MustID(t, "Shared fact across projects.", "project", "p2"))
	if g, err := e.App.Ops.EmbeddingGaps(ctx); err != nil || g.Unembedded != 8 {
		t.Fatalf("gaps before the tracker = %+v, %v", g, err)
	}
	apitest.EmbedPending(t, e.App.Vectors)
	if g, err := e.App.Ops.EmbeddingGaps(ctx); err != nil || g.Unembedded != 0 || g.Total != 8 || g.Coverage != "100.0%" {
		t.Fatalf("gaps after embedding = %+v, %v", g, err)
	}
	// A new model: every vector is stale. Two vectors of the old model
	// are also deleted outright.
	v2 := &hashEmbedder{model: "hash-v2", dim: 16}
	e.WithEmbedder(v2)
	if err := e.App.Vectors.WarmVectors(ctx); err != nil {
		t.Fatal(err)
	}
	g, _ := e.App.Ops.EmbeddingGaps(ctx)
	if g.Unembedded != 8 || g.Coverage != "0.0%" {
		t.Fatalf("gaps after the model change = %+v", g)
	}
	dry := repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{BatchSize: 3, DryRun: true})
	if dry.Affected != 3 || v2.texts != 0 {
		t.Fatalf("dry run = %+v (texts embedded %d)", dry, v2.texts)
	}
	one := repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{BatchSize: 3})
	if !one.Success || one.Affected != 3 {
		t.Fatalf("one batch = %+v", one)
	}
	all := repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{BatchSize: 2, FullSweep: true})
	if !all.Success || all.Affected != 5 || !strings.Contains(all.Message, "0 still without") {
		t.Fatalf("full sweep = %+v", all)
	}
	if g, _ := e.App.Ops.EmbeddingGaps(ctx); g.Unembedded != 0 {
		t.Fatalf("gaps after the sweep = %+v", g)
	}
	if n := e.Count(t, `SELECT count(*) FROM embeddings WHERE model = 'hash-v2'`); n != 7 {
		t.Fatalf("hash-v2 vectors = %d, want 7 (one shared)", n)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE embedding_model = 'hash-v2'`); n != 8 {
		t.Fatalf("memories marked hash-v2 = %d", n)
	}
	// The in-memory index follows: every live memory is indexed and
	// vector search finds the right one.
	st, err := e.App.Vectors.EmbeddingStatus(ctx)
	if err != nil || st.Indexed != 8 {
		t.Fatalf("index = %+v, %v", st, err)
	}
	res, err := e.Svc.Recall(ctx, core.RecallInput{Query: "metrics service host", NoTracking: true, Limit: 1})
	if err != nil || len(res.Results) == 0 || res.Results[0].ID != ids[4] {
		t.Fatalf("recall after re-embed = %+v, %v", res, err)
	}
	if again := repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{FullSweep: true}); again.Affected != 0 {
		t.Fatalf("second sweep = %+v", again)
	}
}

func TestRepairCleanOrphans(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	e.WithEmbedder(&hashEmbedder{model: "hash-v1", dim: 16})
	if err := e.App.Vectors.WarmVectors(ctx); err != nil {
		t.Fatal(err)
	}
	keep := e.MustID(t, "The billing service runs on PostgreSQL.")
	gone := e.MustID(t, "The old cron host was retired.")
	apitest.EmbedPending(t, e.App.Vectors)
	forget(t, e, gone)
	exec(t, e, `INSERT INTO embeddings (content_hash, model, dimensions, vector) VALUES ('no-memory', 'hash-v1', 1, x'0000803f')`)
	dry := repair(t, e, ops.RepairCleanOrphans, operator, ops.RepairOptions{DryRun: true})
	if dry.Affected != 2 || e.Count(t, `SELECT count(*) FROM embeddings`) != 3 {
		t.Fatalf("dry run = %+v", dry)
	}
	res := repair(t, e, ops.RepairCleanOrphans, operator, ops.RepairOptions{BatchSize: 1})
	if !res.Success || res.Affected != 2 {
		t.Fatalf("clean = %+v", res)
	}
	if n := e.Count(t, `SELECT count(*) FROM embeddings WHERE content_hash = ?`, hashOf(t, e, keep)); n != 1 {
		t.Fatal("a live memory's vector was deleted")
	}
	if st, _ := e.App.Vectors.EmbeddingStatus(ctx); st.Indexed != 1 {
		t.Fatalf("index = %d, want 1", st.Indexed)
	}
	if again := repair(t, e, ops.RepairCleanOrphans, operator, ops.RepairOptions{}); again.Affected != 0 {
		t.Fatalf("second run = %+v", again)
	}
}

// insertRaw writes a memory row straight into the table, as an older tool
// or a raw import would, with its own hash.
func insertRaw(t *testing.T, e *apitest.Env, id, content, hash, project string, importance float64, pinned bool, tags string) {
	t.Helper()
	norm := text.NormalizeContent(content)
	now := storage.FormatTime(e.Clock.Now())
	var proj any
	if project != "" {
		proj = project
	}
	exec(t, e, `INSERT INTO memories (id, content, content_hash, importance, pinned, tags, project, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, norm.Storage, hash, importance, pinned, tags, proj, now, now)
}

func TestRepairDeduplicate(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	first := e.MustID(t, "The deploy window is Tuesday at noon.", "tags", []string{"deploy"})
	e.Clock.Advance(time.Minute)
	// Same normalized content, a legacy hash, more important: the keeper.
	insertRaw(t, e, "dup-important", "the deploy window is tuesday at noon!", "legacy-1", "", 0.95, false, `["ops","Deploy"]`)
	// A pinned copy is never touched; a copy in another project is not a
	// duplicate.
	insertRaw(t, e, "dup-pinned", "The deploy window is Tuesday at noon", "legacy-2", "", 0.5, true, `[]`)
	insertRaw(t, e, "other-project", "The deploy window is Tuesday at noon.", "legacy-3", "elsewhere", 0.5, false, `[]`)
	// A cluster whose rows are all pinned is skipped.
	insertRaw(t, e, "pin-a", "Pinned twice.", "legacy-4", "", 0.5, true, `[]`)
	insertRaw(t, e, "pin-b", "pinned twice", "legacy-5", "", 0.5, true, `[]`)

	st, err := e.App.Ops.DedupStats(ctx)
	if err != nil || st.ExactClusters != 1 || st.ExactExcess != 1 || st.TotalActive != 6 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	before := e.State(t)
	dry := repair(t, e, ops.RepairDeduplicate, operator, ops.RepairOptions{DryRun: true})
	if dry.Affected != 1 || !dry.DryRun {
		t.Fatalf("dry run = %+v", dry)
	}
	e.Unchanged(t, before)
	var version int
	_ = e.RO.QueryRow(`SELECT version FROM memories WHERE id = ?`, first).Scan(&version)

	res := repair(t, e, ops.RepairDeduplicate, core.Actor{Name: "maint", Type: core.ActorOperator}, ops.RepairOptions{Reason: "weekly"})
	if !res.Success || res.Affected != 1 {
		t.Fatalf("dedup = %+v", res)
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id = ? AND is_deleted = 1 AND version = ?`, first, version); n != 1 {
		t.Fatal("the lower-scored row was not retired without a version increment")
	}
	var tags string
	_ = e.RO.QueryRow(`SELECT tags FROM memories WHERE id = 'dup-important' AND is_deleted = 0`).Scan(&tags)
	if tags != `["ops","Deploy"]` {
		// "deploy" is already there as "Deploy": tags merge case-insensitively.
		t.Fatalf("keeper tags = %s", tags)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = ? AND event = 'deleted' AND reason = 'dedup: duplicate of dup-important' AND changed_by = 'maint'`, first); n != 1 {
		t.Fatal("no deleted history with the dedup reason")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'dup-important' AND event = 'merged'
		AND json_extract(metadata, '$.duplicates[0]') = ?`, first); n != 1 {
		t.Fatal("no merged history on the keeper")
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_history WHERE memory_id = 'system' AND reason = 'weekly'
		AND json_extract(metadata, '$.repairAction') = 'deduplicate' AND json_extract(metadata, '$.affected') = 1`); n != 1 {
		t.Fatal("no audit row")
	}
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE id IN ('dup-pinned', 'other-project', 'pin-a', 'pin-b') AND is_deleted = 0`); n != 4 {
		t.Fatal("a pinned or other-project row was retired")
	}
	if again := repair(t, e, ops.RepairDeduplicate, operator, ops.RepairOptions{}); again.Affected != 0 {
		t.Fatalf("second run = %+v", again)
	}
	if st, _ := e.App.Ops.DedupStats(ctx); st.ExactClusters != 0 || st.TotalActive != 5 {
		t.Fatalf("stats after = %+v", st)
	}
}

func TestRepairDeduplicateMergesNewTags(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	id := e.MustID(t, "Backups run at 02:00 UTC.", "tags", []string{"backup"}, "importance", 0.9)
	insertRaw(t, e, "raw", "backups run at 02:00 utc", "legacy", "", 0.2, false, `["ops"]`)
	res := repair(t, e, ops.RepairDeduplicate, operator, ops.RepairOptions{})
	if res.Affected != 1 {
		t.Fatalf("dedup = %+v", res)
	}
	var tags string
	var version int
	_ = e.RO.QueryRow(`SELECT tags, version FROM memories WHERE id = ? AND is_deleted = 0`, id).Scan(&tags, &version)
	if tags != `["backup","ops"]` || version != 2 {
		t.Fatalf("keeper tags %s version %d", tags, version)
	}
}

func TestRepairGate(t *testing.T) {
	agent := core.Actor{Name: "claude", Type: core.ActorAgent}
	daemon := core.Actor{Name: "maintenance-worker", Type: core.ActorDaemon}
	ctx := context.Background()

	t.Run("disabled", func(t *testing.T) {
		e := apitest.NewStoreEnv(t, apitest.NoEmbed)
		_, err := e.App.Ops.Repair(ctx, ops.RepairRequeueDead, agent, ops.RepairOptions{})
		wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairDisabled)
		_, err = e.App.Ops.Repair(ctx, ops.RepairRequeueDead, daemon, ops.RepairOptions{})
		wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairDisabled)
		repair(t, e, ops.RepairRequeueDead, operator, ops.RepairOptions{})
	})
	t.Run("frozen", func(t *testing.T) {
		e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) {
			c.Maintenance.AutonomousEnabled, c.Maintenance.AutonomousFrozen = true, true
		})
		_, err := e.App.Ops.Repair(ctx, ops.RepairCheckFTS, agent, ops.RepairOptions{})
		wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairFrozen)
		_, err = e.App.Ops.Repair(ctx, ops.RepairCheckFTS, daemon, ops.RepairOptions{})
		wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairFrozen)
		if res := repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{}); !res.Success {
			t.Fatalf("operator denied while frozen: %+v", res)
		}
	})
	t.Run("cooldown", func(t *testing.T) {
		e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Maintenance.AutonomousEnabled = true })
		repair(t, e, ops.RepairRequeueDead, agent, ops.RepairOptions{})
		e.Clock.Advance(15 * time.Second)
		_, err := e.App.Ops.Repair(ctx, ops.RepairRequeueDead, agent, ops.RepairOptions{})
		ce := wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairCooldown)
		if ce.Message != "cooldown active, 45000ms remaining" {
			t.Fatalf("message %q", ce.Message)
		}
		// Other actions have their own state; operators and the daemon are
		// never limited.
		repair(t, e, ops.RepairReleaseLeases, agent, ops.RepairOptions{})
		for i := 0; i < 5; i++ {
			repair(t, e, ops.RepairRequeueDead, operator, ops.RepairOptions{})
			repair(t, e, ops.RepairRequeueDead, daemon, ops.RepairOptions{})
		}
		e.Clock.Advance(45 * time.Second)
		repair(t, e, ops.RepairRequeueDead, agent, ops.RepairOptions{})
	})
	t.Run("budget", func(t *testing.T) {
		e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) {
			c.Maintenance.AutonomousEnabled = true
			c.Maintenance.DedupCooldown = 0
			c.Maintenance.DedupHourlyBudget = 3
		})
		for i := 0; i < 3; i++ {
			repair(t, e, ops.RepairDeduplicate, agent, ops.RepairOptions{})
			e.Clock.Advance(time.Minute)
		}
		_, err := e.App.Ops.Repair(ctx, ops.RepairDeduplicate, agent, ops.RepairOptions{})
		ce := wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairBudget)
		if ce.Message != "hourly budget exhausted (3 runs/hr)" {
			t.Fatalf("message %q", ce.Message)
		}
		e.Clock.Advance(56 * time.Minute) // 59 min after the first run
		_, err = e.App.Ops.Repair(ctx, ops.RepairDeduplicate, agent, ops.RepairOptions{})
		wantCode(t, err, http.StatusTooManyRequests, ops.CodeRepairBudget)
		e.Clock.Advance(time.Minute) // the hour window opened by the first run ends
		repair(t, e, ops.RepairDeduplicate, agent, ops.RepairOptions{})
	})
	t.Run("bad options", func(t *testing.T) {
		e := apitest.NewStoreEnv(t, apitest.NoEmbed)
		_, err := e.App.Ops.Repair(ctx, ops.RepairReEmbed, operator, ops.RepairOptions{BatchSize: -1})
		ce := wantCode(t, err, http.StatusBadRequest, core.CodeInvalidRequest)
		if ce.Extra["field"] != "batchSize" {
			t.Fatalf("field %v", ce.Extra["field"])
		}
		_, err = e.App.Ops.Repair(ctx, ops.RepairCheckFTS, operator, ops.RepairOptions{JobID: "x"})
		wantCode(t, err, http.StatusBadRequest, core.CodeInvalidRequest)
		_, err = e.App.Ops.Repair(ctx, "nope", operator, ops.RepairOptions{})
		wantCode(t, err, http.StatusNotFound, ops.CodeUnknownRepair)
	})
}

func TestRepairSingleFlight(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		e.MustID(t, fmt.Sprintf("Fact number %d about the cache layer.", i))
	}
	emb := &hashEmbedder{model: "slow", dim: 8, hold: make(chan struct{}), entered: make(chan struct{}, 1)}
	e.WithEmbedder(emb)
	type out struct {
		res *ops.RepairResult
		err error
	}
	first := make(chan out, 1)
	go func() {
		res, err := e.App.Ops.Repair(ctx, ops.RepairReEmbed, operator, ops.RepairOptions{FullSweep: true})
		first <- out{res, err}
	}()
	select {
	case <-emb.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first re-embed never reached the embedder")
	}
	// Meanwhile: the same action from another caller is refused, over the
	// API too; other actions run.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.App.Ops.Repair(ctx, ops.RepairReEmbed, core.Actor{Name: "bob"}, ops.RepairOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		ce := wantCode(t, err, http.StatusConflict, ops.CodeRepairInProgress)
		if !strings.Contains(ce.Message, "already in progress") {
			t.Fatalf("message %q", ce.Message)
		}
	}
	e.Post(t, "/api/repair/re-embed", nil).WantErr(t, http.StatusConflict, ops.CodeRepairInProgress)
	repair(t, e, ops.RepairCheckFTS, operator, ops.RepairOptions{})
	close(emb.hold)
	o := <-first
	if o.err != nil || !o.res.Success || o.res.Affected != 3 {
		t.Fatalf("first run = %+v, %v", o.res, o.err)
	}
	// Released: the next run goes through.
	repair(t, e, ops.RepairReEmbed, operator, ops.RepairOptions{})
}

func TestRepairRetentionSweepAction(t *testing.T) {
	e := apitest.NewStoreEnv(t, apitest.NoEmbed, func(c *config.Config) { c.Maintenance.AutonomousEnabled = true })
	forget(t, e, e.MustID(t, "An old note that nobody needs."))
	e.MustID(t, "A note that stays.")
	e.Clock.Advance(31 * day)
	dry := repair(t, e, ops.RepairRetentionSweep, operator, ops.RepairOptions{DryRun: true})
	if dry.Affected != 1 || e.Count(t, `SELECT count(*) FROM memories`) != 2 {
		t.Fatalf("dry run = %+v", dry)
	}
	res := repair(t, e, ops.RepairRetentionSweep, core.Actor{Name: "worker", Type: core.ActorDaemon}, ops.RepairOptions{})
	if !res.Success || res.Affected != 1 || !strings.Contains(res.Message, "tombstones 1") {
		t.Fatalf("sweep = %+v", res)
	}
	assertFTS(t, e)
}
