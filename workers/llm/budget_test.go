package llm

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/storage"
)

// Each provider reports a call's tokens from its own wire format; a
// server that reports none is estimated from the text.
func TestUsageFromTheProvidersWire(t *testing.T) {
	ctx := context.Background()
	ollama, _ := fakeServer(t, 200, `{"model":"llama3.2:3b","response":"{\"facts\":[]}","done":true,"prompt_eval_count":812,"eval_count":37}`)
	openai, _ := fakeServer(t, 200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":640,"completion_tokens":12,"total_tokens":652}}`)
	anthropic, _ := fakeServer(t, 200, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":700,"output_tokens":21}}`)
	silent, _ := fakeServer(t, 200, `{"model":"m","response":"0123456789abcdef","done":true}`)
	for _, tc := range []struct {
		name     string
		provider string
		cfg      Config
		in, out  int64
		estimate bool
	}{
		{"ollama", "ollama", Config{BaseURL: ollama.URL}, 812, 37, false},
		{"openai", "openai", Config{BaseURL: openai.URL}, 640, 12, false},
		{"anthropic", "anthropic", Config{BaseURL: anthropic.URL, APIKey: "k"}, 700, 21, false},
		{"no usage reported", "ollama", Config{BaseURL: silent.URL}, 3, 4, true}, // 12-character prompt, 16-character answer
	} {
		p, err := New(tc.provider, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, u, err := p.(UsageReporter).GenerateUsage(ctx, "extract this", extract.GenerateOptions{})
		if err != nil || u.InputTokens != tc.in || u.OutputTokens != tc.out || u.Estimated != tc.estimate {
			t.Errorf("%s: usage %+v, %v; want %d in, %d out, estimated %v", tc.name, u, err, tc.in, tc.out, tc.estimate)
		}
	}
	fakeClaude(t, `read -r line
printf '%s' '{"type":"result","subtype":"success","is_error":false,"result":"{}","usage":{"input_tokens":9,"cache_creation_input_tokens":1200,"cache_read_input_tokens":300,"output_tokens":44}}'`)
	p, err := New("claude-code", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, u, err := p.(UsageReporter).GenerateUsage(ctx, "p", extract.GenerateOptions{}); err != nil || u.InputTokens != 1509 || u.OutputTokens != 44 {
		t.Errorf("claude CLI usage %+v, %v; want 1509 in (input and cache), 44 out", u, err)
	}
}

// auto never picks a model: not the agent's own CLI (the user's
// subscription), not a local Ollama. `cairn install` asks.
func TestAutoIsTheHeuristic(t *testing.T) {
	fakeClaude(t, claudeScript)
	srv, _ := fakeServer(t, 200, `{"models":[{"name":"llama3.2:3b"}]}`)
	t.Setenv("OLLAMA_HOST", srv.URL)
	for _, name := range []string{"", "auto", "AUTO"} {
		p, err := New(name, Config{})
		if err != nil || p.Name() != ProviderHeuristic {
			t.Errorf("New(%q) = %v, %v; want the heuristic", name, p, err)
		}
	}
	if got := Detect(context.Background()); got != ProviderClaudeCode {
		t.Errorf("Detect = %q: install should still find the CLI to ask about", got)
	}
}

func TestBudgetStopsAModelForTheDay(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: filepath.Join(t.TempDir(), "m.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv, calls := fakeServer(t, 200, `{"model":"llama3.2:3b","response":"{\"facts\":[]}","done":true,"prompt_eval_count":60,"eval_count":10}`)
	model, err := New("ollama", Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 23, 0, 0, 0, time.UTC)
	var reports []string
	b := &Budgeted{Model: model, DB: db, Budget: 100, Now: func() time.Time { return now },
		Spent: func(day string, used, budget int64) { reports = append(reports, day) }}
	prompt := extract.ExtractionPrompt("We decided to use sqlc instead of gorm because gorm hid N+1 queries.")
	for range 2 { // 70 tokens, then 140: the second call spends the budget
		if _, err := b.Generate(ctx, prompt, extract.GenerateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if b.Name() != "heuristic (daily budget of ollama/llama3.2:3b spent)" || !b.LexicalDecisions() {
		t.Fatalf("past the budget: name %q", b.Name())
	}
	// Past the budget, cairn's prompts are the heuristic's; the model is
	// not called, and the spending is reported once.
	out, err := b.Generate(ctx, prompt, extract.GenerateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := extract.ParseExtraction(out); len(res.Facts) != 1 {
		t.Fatalf("fallback extraction %q", out)
	}
	b.Generate(ctx, prompt, extract.GenerateOptions{})
	if len(*calls) != 2 || len(reports) != 1 || reports[0] != "2026-03-01" {
		t.Fatalf("model calls %d, reports %v", len(*calls), reports)
	}
	if _, err := b.Generate(ctx, "write questions for this memory", extract.GenerateOptions{}); !errors.Is(err, ErrBudgetSpent) {
		t.Fatalf("another prompt past the budget: %v", err)
	}
	usage, err := storage.ModelUsageSince(ctx, db.Reader(), "2026-03-01")
	if err != nil || len(usage) != 1 {
		t.Fatalf("usage %+v, %v", usage, err)
	}
	if u := usage[0]; u.Provider != "ollama/llama3.2:3b" || u.Calls != 2 || u.InputTokens != 120 || u.OutputTokens != 20 || u.Fallbacks != 2 {
		t.Fatalf("usage %+v", u)
	}
	// The next day the model is back.
	now = now.Add(2 * time.Hour)
	if _, err := b.Generate(ctx, prompt, extract.GenerateOptions{}); err != nil || len(*calls) != 3 || b.Name() != model.Name() {
		t.Fatalf("next day: calls %d, name %q, %v", len(*calls), b.Name(), err)
	}
}
