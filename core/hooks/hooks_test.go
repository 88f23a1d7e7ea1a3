package hooks_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/internal/apitest"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/core"
)

const (
	projA = "/work/alpha"
	projB = "/work/beta"
)

func TestHooksRequireHarness(t *testing.T) {
	e := apitest.NewEnv(t)
	for _, ep := range []string{"session-start", "user-prompt-submit", "session-end", "remember", "recall", "pre-compaction", "compaction-complete"} {
		e.Post(t, "/api/hooks/"+ep, map[string]any{"project": projA, "prompt": "x", "content": "x", "query": "x", "summary": "x"}).
			WantInvalid(t, "harness", "harness is required")
		e.Post(t, "/api/hooks/"+ep, map[string]any{"harness": 7}).WantInvalid(t, "harness", "must be a string")
	}
	e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code"}).WantInvalid(t, "userMessage", "userPrompt")
	e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code"}).WantInvalid(t, "content", "content are required")
	e.Post(t, "/api/hooks/recall", map[string]any{"harness": "claude-code"}).WantInvalid(t, "query", "query are required")
	e.Post(t, "/api/hooks/compaction-complete", map[string]any{"harness": "claude-code"}).WantInvalid(t, "summary", "summary are required")
}

func TestHookSessionStartScopeBudgetPinnedIdentity(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Use tabs. "+strings.Repeat("agent rule ", 3000)), 0o600)
	os.WriteFile(filepath.Join(dir, "USER.md"), []byte("The user is Ada."), 0o600)
	e := apitest.NewEnv(t, func(c *config.Config) { c.Hooks.IdentityDir = dir })

	pinnedOld := e.Mem(t, "alpha pinned rule: never force-push main", map[string]any{"project": projA, "pinned": true})
	e.Clock.Advance(400 * 24 * 3600e9) // far older than the newest-N window would keep
	for i := range 30 {
		e.Mem(t, fmt.Sprintf("alpha fact number %d about the build cache", i), map[string]any{"project": projA})
	}
	e.Mem(t, "beta secret plan for the other client", map[string]any{"project": projB})
	e.Mem(t, "beta pinned rule", map[string]any{"project": projB, "pinned": true})
	e.Mem(t, "global fact: the user prefers short answers", nil)

	r := e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "cwd": projA, "session_id": "s1", "source": "startup"}).Want(t, 200)
	inject := r.Str("inject")
	if !strings.HasPrefix(inject, "[cairn:context | project="+projA) || !strings.HasSuffix(inject, "[/cairn:context]") {
		t.Fatalf("inject not marked:\n%s", inject)
	}
	if n := len([]rune(inject)); n > 9000 {
		t.Fatalf("inject is %d chars, over the 9,000 default", n)
	}
	if strings.Contains(inject, "beta") {
		t.Fatalf("another project's memory injected:\n%s", inject)
	}
	if !strings.Contains(inject, "never force-push main") {
		t.Fatalf("old pinned memory missing:\n%s", inject)
	}
	if !strings.Contains(inject, "## Agent Instructions\nUse tabs.") || !strings.Contains(inject, "[truncated]") ||
		!strings.Contains(inject, "## About Your User\nThe user is Ada.") {
		t.Fatalf("identity files missing or not truncated:\n%.2000s", inject)
	}
	mems := r.List(t, "memories")
	if mems[0]["id"] != pinnedOld {
		t.Fatalf("pinned memory not first: %v", mems[0])
	}
	// The memory list stays within its 2,000-char budget, and the inject
	// ends with when to store a memory.
	sect, instructions, ok := strings.Cut(inject[strings.Index(inject, "## Relevant Memories"):], "\n## Storing memories\n")
	if !ok || !strings.Contains(instructions, "memory_store tool of the cairn MCP server") || !strings.Contains(instructions, "a bug's cause and fix") {
		t.Fatalf("no instructions for storing memories at the end:\n%s", inject)
	}
	if n := len([]rune(sect)); n > 2000+200 {
		t.Fatalf("memory section is %d chars", n)
	}
	if !strings.Contains(inject, "global fact") {
		t.Fatalf("memory without a project should be eligible:\n%s", sect)
	}

	// A smaller cap is honoured whatever the identity files hold.
	e2 := apitest.NewEnv(t, func(c *config.Config) { c.Hooks.IdentityDir = dir; c.Hooks.MaxInjectChars = 1000 })
	e2.Mem(t, "alpha one", map[string]any{"project": projA})
	inj := e2.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA}).Want(t, 200).Str("inject")
	if n := len([]rune(inj)); n > 1000 || !strings.Contains(inj, "alpha one") || !strings.Contains(inj, "## Storing memories") {
		t.Fatalf("cap 1000: %d chars\n%s", n, inj)
	}
	// hooks.store_instructions = false leaves them out.
	e3 := apitest.NewEnv(t, func(c *config.Config) { c.Hooks.StoreInstructions = false })
	e3.Mem(t, "alpha one", map[string]any{"project": projA})
	if inj := e3.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA}).Want(t, 200).Str("inject"); strings.Contains(inj, "Storing memories") {
		t.Fatalf("store_instructions off, still told:\n%s", inj)
	}
}

func TestHookUserPromptScopeGateBudgetDedup(t *testing.T) {
	e := apitest.NewEnv(t)
	a1 := e.Mem(t, "deploys go through the blue green pipeline on friday", map[string]any{"project": projA})
	e.Mem(t, "deploys for beta use the canary pipeline", map[string]any{"project": projB})
	for i := range 8 {
		e.Mem(t, fmt.Sprintf("pipeline note %d: deploys are logged in the release channel", i), map[string]any{"project": projA})
	}
	ask := func(key string) *apitest.Resp {
		return e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "cwd": projA,
			"session_id": key, "prompt": "how do deploys through the pipeline work?", "hook_event_name": "UserPromptSubmit", "permission_mode": "default"}).Want(t, 200)
	}
	r := ask("s1")
	inject := r.Str("inject")
	if !strings.HasPrefix(inject, "[cairn:recall | query=") || !strings.HasSuffix(inject, "[/cairn:recall]") {
		t.Fatalf("inject not marked:\n%s", inject)
	}
	if strings.Contains(inject, "canary") {
		t.Fatalf("another project's memory injected:\n%s", inject)
	}
	n := int(r.Num("memoryCount"))
	if n < 1 || n > 5 || r.Str("engine") == "" || len(r.List2(t, "queryTerms")) == 0 {
		t.Fatalf("bad answer: %s", r)
	}
	body := inject[strings.Index(inject, "\n")+1 : strings.LastIndex(inject, "\n")]
	if len([]rune(body)) > 500 {
		t.Fatalf("memory lines are %d chars, over 500", len([]rune(body)))
	}
	first := map[string]bool{}
	for _, m := range r.List(t, "memories") {
		first[m["id"].(string)] = true
	}
	// The next prompts of the session do not repeat what was injected.
	for p := 2; p <= 6; p++ {
		for _, m := range ask("s1").List(t, "memories") {
			if first[m["id"].(string)] {
				t.Fatalf("prompt %d re-injected %v", p, m["id"])
			}
		}
	}
	// Another session is not affected by s1's dedup.
	if ask("s2").Num("memoryCount") == 0 {
		t.Fatal("dedup leaked across sessions")
	}
	_ = a1

	// Gate on relevance, not rank: a memory holding half of the prompt's
	// words is relevant at 0.5 whatever its rank score, so a 0.6 gate keeps
	// it out and a 0.4 gate lets it in.
	for _, tc := range []struct {
		gate   float64
		inject bool
	}{{0.6, false}, {0.4, true}} {
		g := apitest.NewEnv(t, func(c *config.Config) { c.Hooks.PromptMinScore = tc.gate })
		g.Mem(t, "deploys go through the blue green pipeline", map[string]any{"project": projA, "importance": 0.1})
		r = g.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": projA,
			"userMessage": "deploys pipeline kubernetes helm"}).Want(t, 200)
		if got := r.Num("memoryCount") == 1; got != tc.inject || r.Num("topScore") != 0.5 {
			t.Fatalf("gate %.1f: %s", tc.gate, r)
		}
	}
}

func TestHookSessionEndTranscripts(t *testing.T) {
	e := apitest.NewEnv(t)
	cc := strings.Join([]string{
		`{"type":"summary","summary":"x"}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		`{"type":"user","uuid":"1","message":{"role":"user","content":"Please fix the flaky test in parser_test.go\n[cairn:recall | query=\"flaky\" | results=1 | engine=hybrid]\n- old memory that must not come back\n[/cairn:recall]"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"I found the race in the parser."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"PASS ok 0.3s huge output"}]}}`,
		`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["[cairn:context | project=x | memories=1]\n- injected\n[/cairn:context]"]}}`,
		`not json at all`,
		``,
	}, "\n")
	r := e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "cc1", "cwd": projA, "transcript": cc, "reason": "prompt_input_exit", "unknown_field": 1}).Want(t, 200)
	if !r.Bool("queued") || r.Str("format") != "claude-code" || r.Str("jobId") == "" {
		t.Fatalf("session-end: %s", r)
	}
	s := e.Get(t, "/api/sessions/cc1").Want(t, 200)
	want := "User: Please fix the flaky test in parser_test.go\nAssistant: I found the race in the parser."
	if got := s.Str("transcript"); got != want {
		t.Fatalf("claude code transcript:\n%q\nwant\n%q", got, want)
	}
	if s.Str("ended_at") == "" || s.Str("end_reason") != "prompt_input_exit" || s.Str("project") != projA {
		t.Fatalf("session row: %s", s)
	}

	codex := strings.Join([]string{
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"abc","cwd":"/x"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>cwd=/x</environment_context>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"rename the flag"}]}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed --foo to --bar."}]}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"Renamed --foo to --bar."}}`,
	}, "\n")
	r = e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "codex", "sessionKey": "cx1", "transcript": codex}).Want(t, 200)
	if r.Str("format") != "codex" {
		t.Fatalf("codex: %s", r)
	}
	if got := e.Get(t, "/api/sessions/cx1").Str("transcript"); got != "User: rename the flag\nAssistant: Renamed --foo to --bar." {
		t.Fatalf("codex transcript: %q", got)
	}

	// Plain text, with cairn's blocks stripped.
	r = e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "tx1",
		"transcript": "we chose sqlite\n[cairn:recall | query=\"x\" | results=1 | engine=keyword]\n- echo\n[/cairn:recall]\nbecause it is embedded\n"}).Want(t, 200)
	if r.Str("format") != "text" || r.Str("transcript") != "stored" {
		t.Fatalf("text: %s", r)
	}
	if got := e.Get(t, "/api/sessions/tx1").Str("transcript"); got != "we chose sqlite\n\nbecause it is embedded" {
		t.Fatalf("text transcript: %q", got)
	}

	// Listing.
	l := e.Get(t, "/api/sessions").Want(t, 200)
	if l.Num("count") != 3 {
		t.Fatalf("sessions: %s", l)
	}
	e.Get(t, "/api/sessions/nope").WantErr(t, 404, core.CodeNotFound)
}

func TestHookWritesFrozen(t *testing.T) {
	e := apitest.NewEnv(t)
	e.Mem(t, "alpha deploy rule", map[string]any{"project": projA})
	e.Svc.SetMutationsFrozen(true)
	for _, ep := range []string{"remember", "session-end", "compaction-complete"} {
		e.Post(t, "/api/hooks/"+ep, map[string]any{"harness": "claude-code", "content": "x y z", "summary": "s", "session_id": "f1", "transcript": "hi"}).
			WantErr(t, http.StatusServiceUnavailable, core.CodeFrozen)
	}
	// Reads still answer.
	e.Post(t, "/api/hooks/session-start", map[string]any{"harness": "claude-code", "project": projA, "session_id": "f1"}).Want(t, 200)
	e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "project": projA, "session_id": "f1", "prompt": "deploy rule"}).Want(t, 200)
	e.Post(t, "/api/hooks/recall", map[string]any{"harness": "claude-code", "project": projA, "query": "deploy"}).Want(t, 200)
}

func TestHookRememberRecallCompaction(t *testing.T) {
	e := apitest.NewEnv(t)
	r := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "the staging db is on port 5433, password=hunter2hunter2",
		"cwd": projA, "sessionKey": "s9", "idempotencyKey": "k1"}).Want(t, 200)
	id := r.Str("id")
	if !r.Bool("saved") || id == "" {
		t.Fatalf("remember: %s", r)
	}
	again := e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "different text", "idempotency_key": "k1"}).Want(t, 200)
	if again.Str("id") != id {
		t.Fatalf("idempotency key ignored: %s", again)
	}
	m := e.Get(t, "/api/memory/"+id).Want(t, 200)
	if m.Str("source_type") != "hook" || m.Str("who") != "claude-code" || m.Str("project") != projA || m.Str("session_id") != "s9" ||
		strings.Contains(m.Str("content"), "hunter2") {
		t.Fatalf("stored: %s", m)
	}
	e.Mem(t, "staging db for beta is on port 6000", map[string]any{"project": projB})
	rr := e.Post(t, "/api/hooks/recall", map[string]any{"harness": "claude-code", "project": projA, "query": "staging db port"}).Want(t, 200)
	res := rr.List(t, "results")
	if rr.Num("count") != 1 || res[0]["id"] != id || rr.Str("method") == "" {
		t.Fatalf("hook recall: %s", rr)
	}

	// Pre-compaction lists the project's memories.
	pc := e.Post(t, "/api/hooks/pre-compaction", map[string]any{"harness": "claude-code", "project": projA}).Want(t, 200)
	if !strings.HasPrefix(pc.Str("summaryPrompt"), "Pre-compaction memory flush.") || len(pc.List(t, "memories")) != 1 {
		t.Fatalf("pre-compaction: %s", pc)
	}

	c := e.Post(t, "/api/hooks/compaction-complete", map[string]any{"harness": "claude-code", "summary": "We moved staging to port 5433.", "session_id": "s9", "cwd": projA}).Want(t, 200)
	sm := e.Get(t, "/api/memory/"+c.Str("memoryId")).Want(t, 200)
	if !c.Bool("success") || sm.Str("type") != "session_summary" || sm.Str("source_type") != "hook" {
		t.Fatalf("compaction: %s / %s", c, sm)
	}
	// Replaying the same summary does not store it twice.
	c2 := e.Post(t, "/api/hooks/compaction-complete", map[string]any{"harness": "claude-code", "summary": "We moved staging to port 5433.", "session_id": "s9", "cwd": projA}).Want(t, 200)
	if c2.Str("memoryId") != c.Str("memoryId") {
		t.Fatalf("summary stored twice: %s", c2)
	}
}

// A burst of 1,000 prompts in one session: every call answers, a memory is
// never injected twice within the dedup window, and the session counts
// every prompt.
func TestHookPromptBurst(t *testing.T) {
	e := apitest.NewEnv(t)
	for i := 0; i < 30; i++ {
		e.Mem(t, fmt.Sprintf("deploy note %d: the pipeline for service %d runs on fridays", i, i), map[string]any{"project": projA})
	}
	ctx := context.Background()
	last := map[string]int{}
	burst := 1000
	if raceEnabled {
		burst = 60
	}
	for i := 1; i <= burst; i++ {
		res, err := e.App.Hooks.UserPrompt(ctx, hooks.Request{Harness: "claude-code", Project: projA, SessionKey: "burst",
			Prompt: "how does the deploy pipeline run on fridays"})
		if err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
		for _, m := range res.Memories {
			if prev, ok := last[m.ID]; ok && i-prev <= e.Svc.Config().Hooks.DedupPrompts {
				t.Fatalf("prompt %d re-injected %s (last at %d)", i, m.ID, prev)
			}
			last[m.ID] = i
		}
	}
	s, err := e.App.Sessions.Get(ctx, "burst")
	if err != nil || s.PromptCount != burst {
		t.Fatalf("session after the burst: %+v %v", s, err)
	}
}

// Recall with expand joins the transcript of each result's session.
func TestRecallExpandJoinsTranscript(t *testing.T) {
	e := apitest.NewEnv(t)
	e.Post(t, "/api/hooks/remember", map[string]any{"harness": "claude-code", "content": "the flaky test was the clock in the scheduler",
		"project": projA, "session_id": "s-expand"}).Want(t, 200)
	e.Post(t, "/api/hooks/session-end", map[string]any{"harness": "claude-code", "session_id": "s-expand",
		"transcript": "User: why is the scheduler test flaky?\nAssistant: the clock is not injected."}).Want(t, 200)
	r := e.Post(t, "/api/memory/recall", map[string]any{"query": "flaky scheduler test", "expand": true}).Want(t, 200)
	hits := r.List2(t, "results")
	if len(hits) != 1 {
		t.Fatalf("results: %s", r)
	}
	h := hits[0].(map[string]any)
	if h["session_id"] != "s-expand" || !strings.Contains(fmt.Sprint(h["transcript"]), "clock is not injected") {
		t.Fatalf("expanded hit: %v", h)
	}
	r = e.Post(t, "/api/memory/recall", map[string]any{"query": "flaky scheduler test"}).Want(t, 200)
	if _, ok := r.List2(t, "results")[0].(map[string]any)["transcript"]; ok {
		t.Fatal("transcript without expand")
	}
}

// The prompt hook injects what is about the prompt: the memory that holds
// the prompt's rare words, not every memory sharing a common one; a prompt
// about someone the store never heard of gets nothing. Only what was
// injected counts as accessed.
func TestPromptInjectsOnlyWhatIsAboutThePrompt(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) { c.Pipeline.Enabled = false })
	paint := e.Mem(t, "Melanie: I painted a sunrise over the lake last weekend", map[string]any{"project": projA})
	e.Mem(t, "Caroline: I went to the LGBTQ support group yesterday", map[string]any{"project": projA})
	for i := range 10 {
		e.Mem(t, fmt.Sprintf("Melanie: the kids loved the beach trip number %d", i), map[string]any{"project": projA})
	}
	prompt := func(session, p string) *apitest.Resp {
		return e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "cwd": projA,
			"session_id": session, "prompt": p}).Want(t, 200)
	}
	accessed := func() int {
		return e.Count(t, `SELECT count(*) FROM memories WHERE access_count > 0`)
	}
	// Someone else's life: nothing, and nothing counted as read.
	for i, p := range []string{"What did Jon do after losing his job as a banker?", "Where did Gina open her dance studio?"} {
		if r := prompt(fmt.Sprintf("foreign-%d", i), p); r.Num("memoryCount") != 0 {
			t.Fatalf("%q injected %s", p, r)
		}
	}
	if n := accessed(); n != 0 {
		t.Fatalf("%d memories counted as accessed by prompts that injected nothing", n)
	}
	r := prompt("own", "When did Melanie paint a sunrise?")
	ms := r.List(t, "memories")
	if len(ms) != 1 || ms[0]["id"] != paint {
		t.Fatalf("own prompt injected %v, want only the painting", ms)
	}
	if n := e.Count(t, `SELECT access_count FROM memories WHERE id = ?`, paint); n != 1 || accessed() != 1 {
		t.Fatalf("access: painting %d, accessed %d", n, accessed())
	}
}

// The gate reads a prompt as a person would: the date a question asks
// with ("on 16 November, 2023") is not what it is about and no name; a
// word the store never holds ("basketball") counts against a memory that
// shares only a common name with the prompt; and an answer is about the
// question it answered (its session context). Each part fails with its
// setting off.
func TestPromptGateReadsDatesUnknownWordsAndContext(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*config.Config)
		fail string // the check that fails with this setting, "" for none
	}{
		{"defaults", func(*config.Config) {}, ""},
		{"unknown words free", func(c *config.Config) { c.Hooks.PromptUnknownWeight = 0 }, "unknown"},
		{"no session context", func(c *config.Config) { c.Search.SessionContext = false }, "context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := apitest.NewEnv(t, func(c *config.Config) { c.Pipeline.Enabled = false; tc.mod(c) })
			paint := e.Mem(t, "Melanie: I painted a sunrise over the lake last weekend", map[string]any{"project": projA})
			for i := range 10 {
				e.Mem(t, fmt.Sprintf("Melanie: the kids loved the beach trip number %d", i), map[string]any{"project": projA})
			}
			e.Mem(t, "Maria: How often do you all work out together?", map[string]any{"project": projA, "session_id": "gym"})
			answer := e.Mem(t, "John: Three times a week; it keeps us on track.", map[string]any{"project": projA, "session_id": "gym"})
			n := 0
			prompt := func(p string) []string {
				n++
				r := e.Post(t, "/api/hooks/user-prompt-submit", map[string]any{"harness": "claude-code", "cwd": projA,
					"session_id": fmt.Sprintf("s%d", n), "prompt": p}).Want(t, 200)
				var ids []string
				for _, m := range r.List(t, "memories") {
					ids = append(ids, m["id"].(string))
				}
				return ids
			}
			if got := prompt("What did Melanie paint on 16 November, 2023?"); !slices.Contains(got, paint) {
				t.Errorf("a dated question: %v, want the painting", got)
			}
			got := prompt("Did Melanie enjoy the kids basketball tournament?")
			if (len(got) == 0) != (tc.fail != "unknown") {
				t.Errorf("a question about what the store never held: injected %v", got)
			}
			got = prompt("How often does John work out?")
			if slices.Contains(got, answer) != (tc.fail != "context") {
				t.Errorf("the answer to the prompt's question: injected %v, answer %s", got, answer)
			}
		})
	}
}
