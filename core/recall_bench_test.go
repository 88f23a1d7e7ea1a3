package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/transfer"

	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/vector"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

var benchWords = []string{"deploy", "database", "migration", "friday", "postgres", "redis", "cache", "user",
	"prefers", "tabs", "spaces", "build", "test", "release", "api", "token", "schema", "index", "query", "latency",
	"memory", "agent", "hook", "session", "project", "atlas", "zephyr", "config", "port", "staging", "production",
	"error", "timeout", "retry", "queue", "worker", "embedding", "vector", "search", "ranking"}

type benchStore struct {
	app  *app.App
	db   *storage.DB
	dir  string
	once sync.Once
}

var benchStores sync.Map // size → *benchStore

// recallStore builds (once per size and process) a store of n memories with
// one synthetic unit vector each for the built-in model's name, so the
// vector leg searches n vectors while queries are embedded for real.
func recallStore(b *testing.B, n int) *core.Service { return recallApp(b, n).Service }

// recallApp is recallStore's App (the hooks over the same store).
func recallApp(b *testing.B, n int) *app.App {
	v, _ := benchStores.LoadOrStore(n, &benchStore{})
	bs := v.(*benchStore)
	bs.once.Do(func() {
		ctx := context.Background()
		dir, err := tmpDir()
		if err != nil {
			b.Fatal(err)
		}
		bs.dir = dir
		db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(dir, "r.db"), NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(n), 1))
		// Words follow a Zipf law over a 5,000-word vocabulary (the topic
		// words first), as in real notes: a few words are everywhere,
		// most are rare.
		vocab := append([]string{}, benchWords...)
		for len(vocab) < 5000 {
			vocab = append(vocab, fmt.Sprintf("w%dx%d", len(vocab), r.IntN(1000)))
		}
		zipf := rand.NewZipf(r, 1.1, 20, uint64(len(vocab)-1))
		lines := make([]transfer.ImportLine, n)
		for i := range lines {
			words := make([]byte, 0, 120)
			for w := 0; w < 10+r.IntN(15); w++ {
				words = append(words, vocab[zipf.Uint64()]...)
				words = append(words, ' ')
			}
			lines[i] = transfer.ImportLine{Line: i + 1, Memory: core.Memory{
				Content: fmt.Sprintf("%s(note %d)", words, i), Importance: 0.8, Confidence: 1,
				Project: []string{"atlas", "zephyr", "orion"}[i%3], Type: "fact"}}
		}
		// The vectors are random: no relevance floor, or the vector leg
		// would answer nothing and measure nothing.
		cfg := config.DefaultConfig()
		apitest.NoFloor(&cfg)
		ap := app.New(db, cfg, app.Options{Embedder: apitest.Builtin(b)})
		if _, err := ap.Transfer.Import(ctx, lines, core.Actor{Name: "bench"}); err != nil {
			b.Fatal(err)
		}
		writeRandomVectors(b, db, r)
		start := time.Now()
		if err := ap.Vectors.WarmVectors(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("%d memories: vector index loaded in %v", n, time.Since(start))
		bs.app, bs.db = ap, db
	})
	return bs.app
}

func tmpDir() (string, error) { return mkTemp() }

var benchQueries = []string{"which port does postgres use in staging", "user prefers tabs", "deploy on friday",
	"redis cache timeout", "schema migration error", "what does the agent hook do", "release queue worker latency",
	"embedding vector search ranking"}

func benchRecall(b *testing.B, n int, mode string) {
	svc := recallStore(b, n)
	ctx := context.Background()
	// Warm the query cache as search-as-you-type would, so the figure is
	// the search itself; BenchmarkQueryEmbedding measures embedding.
	for _, q := range benchQueries {
		svc.Recall(ctx, core.RecallInput{Query: q, Mode: mode, NoTracking: true})
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		res, err := svc.Recall(ctx, core.RecallInput{Query: benchQueries[i%len(benchQueries)], Mode: mode,
			NoTracking: true, Filter: storage.MemoryFilter{Project: []string{"", "atlas"}[i%2]}})
		lat = append(lat, time.Since(t0))
		if err != nil || len(res.Results) == 0 {
			b.Fatalf("recall: %v %v", err, res)
		}
		i++
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRecall10kHybridSettings measures hybrid recall of the 10k
// store under recall settings side by side, query by query (the order
// rotating), each setting a service of its own over the same store: the
// defaults, round 2's defaults (before issue 32's measurement), and each
// ranking piece issue 32 measured alone. The synthetic notes have no
// speaker labels and no session context, so the speaker margin and the
// neighbour lift only pay their bookkeeping here;
// BenchmarkConversationScoring measures them on conversation turns.
func BenchmarkRecall10kHybridSettings(b *testing.B) {
	recallApp(b, 10_000)
	v, _ := benchStores.Load(10_000)
	bs := v.(*benchStore)
	variants := []struct {
		name string
		set  func(*config.SearchConfig)
	}{
		{"default", func(*config.SearchConfig) {}},
		{"round2", func(c *config.SearchConfig) {
			c.SpeakerMargin, c.NeighborWeight, c.CoverageIDF, c.Dampening = 1, 0, false, true
		}},
		{"neighbor0.2", func(c *config.SearchConfig) { c.NeighborWeight = 0.2 }},
		{"margin0", func(c *config.SearchConfig) { c.SpeakerMargin = 0 }},
		{"idf", func(c *config.SearchConfig) { c.CoverageIDF = true }},
		{"nodampening", func(c *config.SearchConfig) { c.Dampening = false }},
	}
	ctx := context.Background()
	svcs := make([]*core.Service, len(variants))
	for i, vr := range variants {
		cfg := config.DefaultConfig()
		apitest.NoFloor(&cfg)
		vr.set(&cfg.Search)
		ap := app.New(bs.db, cfg, app.Options{Embedder: apitest.Builtin(b)})
		if err := ap.Vectors.WarmVectors(ctx); err != nil {
			b.Fatal(err)
		}
		for _, q := range benchQueries { // the query cache and the keyword index
			ap.Service.Recall(ctx, core.RecallInput{Query: q, Mode: core.ModeHybrid, NoTracking: true})
		}
		svcs[i] = ap.Service
	}
	lat := make([][]time.Duration, len(variants))
	i := 0
	for b.Loop() {
		q := benchQueries[i%len(benchQueries)]
		for j := range variants {
			k := (i + j) % len(variants)
			t0 := time.Now()
			res, err := svcs[k].Recall(ctx, core.RecallInput{Query: q, Mode: core.ModeHybrid, NoTracking: true,
				Filter: storage.MemoryFilter{Project: []string{"", "atlas"}[i%2]}})
			lat[k] = append(lat[k], time.Since(t0))
			if err != nil || len(res.Results) == 0 {
				b.Fatalf("recall %s: %v %v", variants[k].name, err, res)
			}
		}
		i++
	}
	for k, vr := range variants {
		l := lat[k]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, vr.name+"-p50-ms")
	}
}

func BenchmarkRecall10kKeyword(b *testing.B)  { benchRecall(b, 10_000, core.ModeKeyword) }
func BenchmarkRecall10kVector(b *testing.B)   { benchRecall(b, 10_000, core.ModeVector) }
func BenchmarkRecall10kHybrid(b *testing.B)   { benchRecall(b, 10_000, core.ModeHybrid) }
func BenchmarkRecall100kKeyword(b *testing.B) { benchRecall(b, 100_000, core.ModeKeyword) }
func BenchmarkRecall100kVector(b *testing.B)  { benchRecall(b, 100_000, core.ModeVector) }
func BenchmarkRecall100kHybrid(b *testing.B)  { benchRecall(b, 100_000, core.ModeHybrid) }

// BenchmarkQueryEmbedding is the built-in model embedding one recall query.
func BenchmarkQueryEmbedding(b *testing.B) {
	emb := apitest.Builtin(b)
	i := 0
	for b.Loop() {
		if _, err := emb.Embed(context.Background(), []string{fmt.Sprintf("%s %d", benchQueries[i%len(benchQueries)], i)}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkBackgroundEmbedding is the tracker's throughput: pending
// memories embedded and stored, in memories per second.
func BenchmarkBackgroundEmbedding(b *testing.B) {
	ctx := context.Background()
	const n = 256
	for b.Loop() {
		b.StopTimer()
		dir, _ := mkTemp()
		db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(dir, "e.db"), NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		ap := app.New(db, config.DefaultConfig(), app.Options{})
		lines := make([]transfer.ImportLine, n)
		for i := range lines {
			lines[i] = transfer.ImportLine{Line: i + 1, Memory: core.Memory{Content: fmt.Sprintf("%s %s and %s, note %d",
				benchWords[i%40], benchWords[(i*7)%40], benchWords[(i*13)%40], i), Importance: 0.5, Confidence: 1}}
		}
		ap.Transfer.Import(ctx, lines, core.Actor{})
		ap = app.New(db, config.DefaultConfig(), app.Options{Embedder: apitest.Builtin(b)})
		b.StartTimer()
		if err := ap.Vectors.EmbedPending(ctx, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "memories/s")
}

// benchPrompt measures the user-prompt-submit hook end to end in core
// (session bookkeeping, hybrid recall scoped to a project, gate, budget,
// dedup, redaction) on a store of n memories.
func benchPrompt(b *testing.B, n int) {
	ap := recallApp(b, n)
	svc := ap.Service
	ctx := context.Background()
	for _, q := range benchQueries {
		svc.Recall(ctx, core.RecallInput{Query: q, NoTracking: true}) // warm the query cache
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		_, err := ap.Hooks.UserPrompt(ctx, hooks.Request{Harness: "claude-code", Project: "atlas",
			SessionKey: fmt.Sprintf("bench-%d", i/50), Prompt: benchQueries[i%len(benchQueries)]})
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

func BenchmarkUserPromptSubmit10k(b *testing.B)  { benchPrompt(b, 10_000) }
func BenchmarkUserPromptSubmit100k(b *testing.B) { benchPrompt(b, 100_000) }

// BenchmarkRecallReal measures recall on real memories: the JSONL export
// named by CAIRN_BENCH_DATA (e.g. 10k or 100k Debian package descriptions
// and LoCoMo turns) is imported into a fresh store, each memory gets a
// random unit vector (the vector leg costs the same whatever the vectors
// hold; queries are embedded for real), and the LoCoMo questions of
// CAIRN_BENCH_QUERIES (or, without it, words of the data's own lines) are
// asked keyword-only and hybrid. The keyword leg runs both ways side by
// side, query by query: from FTS5 (search.keyword_index = false, "fts")
// and from the in-memory index ("index"). CAIRN_BENCH_MODES=keyword leaves
// hybrid (and the vectors) out.
func BenchmarkRecallReal(b *testing.B) {
	data := os.Getenv("CAIRN_BENCH_DATA")
	if data == "" {
		b.Skip("CAIRN_BENCH_DATA names no JSONL file")
	}
	ctx := context.Background()
	f, err := os.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	lines, e := httpapi.ReadImportLines(f)
	f.Close()
	if e != nil {
		b.Fatal(e)
	}
	dir := b.TempDir()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(dir, "real.db"), NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	// The goal excludes the query's embedding (BenchmarkQueryEmbedding
	// measures it): 400 queries overflow the service's query cache, so
	// without this every recall embedded its query again.
	emb := &cachedEmbedder{Embedder: apitest.Builtin(b)}
	cfgOld := config.DefaultConfig()
	cfgOld.Search.KeywordIndex = false
	oldApp := app.New(db, cfgOld, app.Options{Embedder: emb})
	newApp := app.New(db, config.DefaultConfig(), app.Options{Embedder: emb})
	oldSvc, newSvc := oldApp.Service, newApp.Service
	t0 := time.Now()
	if _, err := newApp.Transfer.Import(ctx, lines, core.Actor{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d lines imported in %v", len(lines), time.Since(t0))
	modes := []string{core.ModeKeyword, core.ModeHybrid}
	if m := os.Getenv("CAIRN_BENCH_MODES"); m != "" {
		modes = strings.Split(m, ",")
	}
	if slices.ContainsFunc(modes, func(m string) bool { return m != core.ModeKeyword }) {
		writeRandomVectors(b, db, rand.New(rand.NewPCG(1, 2)))
	}
	if err := newApp.Vectors.WarmVectors(ctx); err != nil {
		b.Fatal(err)
	}
	if err := oldApp.Vectors.WarmVectors(ctx); err != nil {
		b.Fatal(err)
	}
	queries := realQueries(b, lines)
	// Build the index (and embed the queries) before timing.
	t0 = time.Now()
	for _, q := range queries {
		for _, svc := range []*core.Service{oldSvc, newSvc} {
			if _, err := svc.Recall(ctx, core.RecallInput{Query: q, NoTracking: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for core.KeywordIndexStats(newSvc).Docs == 0 { // a large store builds in the background
		time.Sleep(100 * time.Millisecond)
		newSvc.KeywordSearch(ctx, queries[0], storage.MemoryFilter{}, 1)
	}
	st := core.KeywordIndexStats(newSvc)
	b.Logf("warm in %v; keyword index: %d documents, %d terms, %.1f MB", time.Since(t0), st.Docs, st.Terms, float64(st.Bytes)/1e6)
	for _, mode := range modes {
		b.Run(mode, func(b *testing.B) {
			lat := map[string][]time.Duration{}
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				for j := range 2 {
					svc := []*core.Service{oldSvc, newSvc}[(j+i)%2] // alternate which runs first
					name := []string{"fts", "index"}[(j+i)%2]
					t := time.Now()
					if _, err := svc.Recall(ctx, core.RecallInput{Query: q, Mode: mode, NoTracking: true}); err != nil {
						b.Fatal(err)
					}
					lat[name] = append(lat[name], time.Since(t))
				}
				i++
			}
			for _, name := range []string{"fts", "index"} {
				l := lat[name]
				slices.Sort(l)
				b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, name+"-p50-ms")
				b.ReportMetric(float64(l[len(l)*99/100].Microseconds())/1000, name+"-p99-ms")
			}
		})
	}
}

// cachedEmbedder embeds each text once.
type cachedEmbedder struct {
	*apitest.Embedder
	mu   sync.Mutex
	seen map[string][]float32
}

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string][]float32{}
	}
	out := make([][]float32, len(texts))
	var missing []string
	for i, t := range texts {
		if v, ok := c.seen[t]; ok {
			out[i] = v
		} else {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		vs, err := c.Embedder.Embed(ctx, missing)
		if err != nil {
			return nil, err
		}
		for i, t := range missing {
			c.seen[t] = vs[i]
		}
		for i, t := range texts {
			out[i] = c.seen[t]
		}
	}
	return out, nil
}

// realQueries are the LoCoMo questions of CAIRN_BENCH_QUERIES, or five
// words of every 50th line.
func realQueries(b *testing.B, lines []transfer.ImportLine) []string {
	var out []string
	if path := os.Getenv("CAIRN_BENCH_QUERIES"); path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		var samples []struct {
			QA []struct {
				Question string `json:"question"`
			} `json:"qa"`
		}
		if err := json.Unmarshal(raw, &samples); err != nil {
			b.Fatal(err)
		}
		for _, s := range samples {
			for _, qa := range s.QA {
				out = append(out, qa.Question)
			}
		}
	} else {
		for i := 0; i < len(lines); i += 50 {
			w := strings.Fields(lines[i].Memory.Content)
			out = append(out, strings.Join(w[:min(5, len(w))], " "))
		}
	}
	return out[:min(len(out), 400)]
}

// writeRandomVectors gives every memory a random unit vector for the
// built-in model.
func writeRandomVectors(b *testing.B, db *storage.DB, r *rand.Rand) {
	ctx := context.Background()
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		hashes, err := storage.Strings(ctx, tx, `SELECT DISTINCT lower(hex(content_hash)) FROM memories`)
		if err != nil {
			return err
		}
		for _, h := range hashes {
			v := make([]float32, uselite.Dimensions)
			var ss float64
			for j := range v {
				v[j] = float32(r.NormFloat64())
				ss += float64(v[j] * v[j])
			}
			for j := range v {
				v[j] /= float32(math.Sqrt(ss))
			}
			if err := storage.UpsertEmbedding(ctx, tx, h, uselite.ModelName, uselite.Dimensions, vector.Encode(v)); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE memories SET embedding_model = ?`, uselite.ModelName)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
