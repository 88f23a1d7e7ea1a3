package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/workers/llm"
)

// classifyModel is an Ollama server (POST /api/generate) that classifies
// memories by their content and judges contradictions by keyword.
func classifyModel(t *testing.T, classes map[string]string, verdicts map[string]string) extract.LLM {
	t.Helper()
	line := regexp.MustCompile(`(?m)^(\d+)\. (.+)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		if r.URL.Path != "/api/generate" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", 400)
			return
		}
		var out string
		switch {
		case strings.Contains(req.Prompt, "into aspects"):
			var parts []string
			for _, m := range line.FindAllStringSubmatch(req.Prompt, -1) {
				if c, ok := classes[m[2]]; ok {
					parts = append(parts, strings.ReplaceAll(c, "$i", m[1]))
				}
			}
			// Noise a model produces: an unknown index and a repeat.
			parts = append(parts, `{"i": 99, "aspect": "x"}`, `{"i": "1", "aspect": "again"}`)
			out = "<think>Grouping the facts.</think>\n```json\n[" + strings.Join(parts, ",\n") + "]\n```"
		case strings.Contains(req.Prompt, extract.ContradictionBeginMarker):
			out = `{"contradicts": false, "confidence": 0.9, "reason": "compatible"}`
			for k, v := range verdicts {
				if strings.Contains(req.Prompt, "Existing memory: "+k) {
					out = v
				}
			}
		default:
			http.Error(w, "unexpected prompt", 400)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "qwen3:4b", "response": out, "done": true})
	}))
	t.Cleanup(srv.Close)
	m, err := llm.New("ollama", llm.Config{BaseURL: srv.URL, Model: "qwen3:4b", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func attrLines(t *testing.T, e *apitest.Env, id string) []string {
	t.Helper()
	r := e.Get(t, "/api/memory/"+id+"?include_deleted=true").Want(t, 200)
	evo, _ := r.JSON["evolution"].(map[string]any)
	attrs, _ := evo["attributes"].([]any)
	var out []string
	for _, x := range attrs {
		a := x.(map[string]any)
		out = append(out, strings.Join([]string{a["entity"].(string), a["aspect"].(string), a["name"].(string), a["value"].(string), a["kind"].(string), a["status"].(string)}, "|"))
	}
	return out
}

// With a model provider, a structural_classify job files an entity's
// memories under aspects (and names the attribute of a memory the linker
// could not read), then asks the model about the newest memory's siblings
// in its aspect: a confident contradiction supersedes the older sibling,
// a weak one becomes a proposal, and no contradiction leaves it alone.
func TestStructuralClassification(t *testing.T) {
	e := apitest.NewEnv(t, apitest.NoEmbed)
	ctx := context.Background()
	const p = "/home/dev/atlas"
	rem := func(content string) string {
		return e.Post(t, "/api/memory/remember", map[string]any{"content": content, "project": p}).Want(t, 200).Str("id")
	}
	const (
		pgText    = "atlas-api runs Postgres 14"
		redisText = "atlas-api runs Redis 6"
		gateText  = "Deploys of atlas-api need a green CI run first"
		myText    = "atlas-api runs MySQL 8"
	)
	pg := rem(pgText)
	redis := rem(redisText)
	gate := rem(gateText)
	if _, err := e.App.Pipeline.PersistGraph(ctx, gate, extract.ExtractionResult{Entities: []extract.Entity{
		{Source: "atlas-api", SourceType: "system", Target: "continuous integration", TargetType: "tool", Relationship: "requires", Confidence: 0.9}}}); err != nil {
		t.Fatal(err)
	}
	my := rem(myText)
	// The linker alone reads three coexisting versions and supersedes
	// nothing.
	if n := e.Count(t, `SELECT count(*) FROM memories WHERE is_deleted = 1`); n != 0 {
		t.Fatalf("%d memories retired before the model ran", n)
	}

	m := classifyModel(t, map[string]string{
		myText:    `{"i": $i, "aspect": "Databases", "kind": "attribute", "new": true}`,
		pgText:    `{"i": $i, "aspect": "databases!", "kind": "fact"}`,
		redisText: `{"i": $i, "aspect": "databases", "kind": "attribute"}`,
		gateText:  `{"i": $i, "aspect": "Deployment", "kind": "CONSTRAINT", "attribute": "deploy gate", "value": "green CI run"}`,
	}, map[string]string{
		pgText:    `Yes. {"contradicts": true, "confidence": 0.92, "reason": "one database"}`,
		redisText: `{"contradicts": true, "confidence": 0.6, "reason": "perhaps"}`,
	})
	p2 := e.App.Pipeline
	if !p2.WantsClassify(m) || p2.WantsClassify(llm.NewHeuristic()) {
		t.Fatal("classification is for models only")
	}
	if err := p2.EnqueueClassify(ctx, my); err != nil {
		t.Fatal(err)
	}
	if err := p2.EnqueueClassify(ctx, my); err != nil { // one pending job per entity
		t.Fatal(err)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE job_type = 'structural_classify' AND status = 'pending'
		AND json_extract(payload, '$.entity') = 'atlas-api' AND json_extract(payload, '$.slot') = 'project:' || ?`, p); n != 1 {
		t.Fatalf("%d classification jobs queued for atlas-api", n)
	}
	// The entity the linker read comes first.
	job, err := e.App.Jobs.Lease(ctx, "test", jobs.StructuralClassify)
	if err != nil || job == nil || !strings.Contains(job.Payload, `"entity":"atlas-api"`) {
		t.Fatalf("lease: %+v %v", job, err)
	}
	res, err := p2.ProcessClassifyJob(ctx, job, m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 4 || res.Classified != 4 || res.Checked != 2 || !slices.Equal(res.Superseded, []string{pg}) || res.Proposed != 1 {
		t.Fatalf("result: %+v", res)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "no valid index") || !strings.Contains(w, "twice") || !strings.Contains(w, "unknown kind") {
		t.Fatalf("warnings: %q", res.Warnings)
	}
	if got := attrLines(t, e, my); !slices.Equal(got, []string{"atlas-api|databases|mysql version|8|attribute|live"}) {
		t.Fatalf("newest: %v", got)
	}
	if got := attrLines(t, e, pg); !slices.Equal(got, []string{"atlas-api|databases|postgres version|14|attribute|superseded"}) {
		t.Fatalf("superseded sibling: %v", got)
	}
	old := e.Get(t, "/api/memory/"+pg+"?include_deleted=true").Want(t, 200)
	if evo, _ := old.JSON["evolution"].(map[string]any); !old.Bool("is_deleted") || evo["superseded_by"] != my {
		t.Fatalf("the contradicted sibling is not superseded by the newest: %s", old.Raw)
	}
	if got := attrLines(t, e, gate); !slices.Equal(got, []string{"atlas-api|deployment|deploy gate|green ci run|constraint|live"}) {
		t.Fatalf("model-read constraint: %v", got)
	}
	if e.Get(t, "/api/memory/"+redis).Bool("is_deleted") {
		t.Fatal("a weak verdict retired a sibling")
	}
	list := e.Get(t, "/api/proposals?state=pending").List(t, "proposals")
	if len(list) != 1 || list[0]["targetMemoryId"] != redis || list[0]["sourceMemoryId"] != my {
		t.Fatalf("proposals: %v", list)
	}
	if n := e.Count(t, `SELECT count(*) FROM memory_jobs WHERE id = ? AND status = 'completed' AND json_extract(result, '$.classified') = 4`, job.ID); n != 1 {
		t.Fatal("the job's result is not stored")
	}
	// Restorable like any supersession.
	e.Post(t, "/api/memory/"+pg+"/recover", map[string]any{"reason": "both run"}).Want(t, 200)
	if got := attrLines(t, e, pg); !slices.Equal(got, []string{"atlas-api|databases|postgres version|14|attribute|live"}) {
		t.Fatalf("recovered: %v", got)
	}
}

func FuzzParseClassification(f *testing.F) {
	for _, s := range []string{
		`[{"i": 1, "aspect": "versions", "kind": "attribute"}]`,
		"<think>x</think>```json\n{\"items\": [{\"i\": \"2\", \"aspect\": \"Net/Work\", \"kind\": \"constraint\", \"attribute\": \"port\", \"value\": \"5433\"}]}\n```",
		`Here: {"i": 1, "aspect": "a", "kind": "?"}`,
		`[{"i": 1.5, "aspect": ""}, {"i": -3}, {"i": 1, "aspect": "` + strings.Repeat("x", 80) + `"}]`,
		`[[1,2],{"i":null}]`, `{`, ``, `[{"i": 1, "aspect": "ok", "attribute": "n", "value": "` + "\x00" + `"}]`,
	} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, raw string, n int) {
		n = n%50 + 1
		if n < 1 {
			n = -n + 1
		}
		items, _ := pipeline.ParseClassification(raw, n)
		if len(items) > n {
			t.Fatalf("%d items for %d memories", len(items), n)
		}
		seen := map[int]bool{}
		for _, it := range items {
			if it.I < 1 || it.I > n || seen[it.I] {
				t.Fatalf("index %d (n=%d, seen %v)", it.I, n, seen[it.I])
			}
			seen[it.I] = true
			if it.Aspect == "" || utf8.RuneCountInString(it.Aspect) > 40 || !utf8.ValidString(it.Aspect) {
				t.Fatalf("aspect %q", it.Aspect)
			}
			if it.Kind != "attribute" && it.Kind != "constraint" {
				t.Fatalf("kind %q", it.Kind)
			}
			if (it.Attribute == "") != (it.Value == "") {
				t.Fatalf("attribute %q without value %q", it.Attribute, it.Value)
			}
		}
	})
}
