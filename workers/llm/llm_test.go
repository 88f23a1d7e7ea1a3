package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/extract"
)

// captured is one request a fake server saw.
type captured struct {
	method, path string
	header       http.Header
	body         string
}

// fakeServer answers every request with status and body, recording it.
func fakeServer(t *testing.T, status int, body string) (*httptest.Server, *[]captured) {
	t.Helper()
	var calls []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls = append(calls, captured{r.Method, r.URL.Path, r.Header.Clone(), string(b)})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func wantErr(t *testing.T, err error, subs ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("error %T is not *llm.Error", err)
	}
	return e
}

func TestOllamaWire(t *testing.T) {
	srv, calls := fakeServer(t, 200, `{"model":"llama3.2:3b","response":"{\"facts\":[]}","done":true,"done_reason":"stop"}`)
	p, err := New("ollama", Config{BaseURL: srv.URL + "/", MaxTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "ollama/llama3.2:3b" {
		t.Errorf("Name %q", p.Name())
	}
	out, err := p.Generate(context.Background(), "extract this", extract.GenerateOptions{JSON: true})
	if err != nil || out != `{"facts":[]}` {
		t.Fatalf("Generate = %q, %v", out, err)
	}
	c := (*calls)[0]
	if c.method != "POST" || c.path != "/api/generate" || c.header.Get("Content-Type") != "application/json" {
		t.Errorf("request %s %s %v", c.method, c.path, c.header)
	}
	want := `{"model":"llama3.2:3b","prompt":"extract this","stream":false,"format":"json","options":{"num_predict":512}}`
	if c.body != want {
		t.Errorf("body\n%s\nwant\n%s", c.body, want)
	}
	// Without JSON: no format; per-call MaxTokens wins.
	p.Generate(context.Background(), "p", extract.GenerateOptions{MaxTokens: 64})
	want = `{"model":"llama3.2:3b","prompt":"p","stream":false,"options":{"num_predict":64}}`
	if (*calls)[1].body != want {
		t.Errorf("body\n%s\nwant\n%s", (*calls)[1].body, want)
	}
}

func TestOpenAIWire(t *testing.T) {
	srv, calls := fakeServer(t, 200, `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"{\"action\":\"add\"}"},"finish_reason":"stop"}]}`)
	t.Setenv("OPENAI_API_KEY", "")
	p, err := New("openai", Config{BaseURL: srv.URL + "/v1", Model: "qwen3-4b", APIKey: "sk-test", MaxTokens: 256})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Generate(context.Background(), "decide", extract.GenerateOptions{JSON: true})
	if err != nil || out != `{"action":"add"}` {
		t.Fatalf("Generate = %q, %v", out, err)
	}
	c := (*calls)[0]
	if c.method != "POST" || c.path != "/v1/chat/completions" || c.header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s %s auth %q", c.method, c.path, c.header.Get("Authorization"))
	}
	want := `{"model":"qwen3-4b","messages":[{"role":"user","content":"decide"}],"max_tokens":256,"response_format":{"type":"json_object"}}`
	if c.body != want {
		t.Errorf("body\n%s\nwant\n%s", c.body, want)
	}
	// A local server: no key, no model, no JSON switch.
	p, err = New("openai", Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	p.Generate(context.Background(), "q", extract.GenerateOptions{})
	c = (*calls)[1]
	if c.header.Get("Authorization") != "" || c.path != "/chat/completions" {
		t.Errorf("local server: auth %q path %s", c.header.Get("Authorization"), c.path)
	}
	if want := `{"messages":[{"role":"user","content":"q"}],"max_tokens":1024}`; c.body != want {
		t.Errorf("body\n%s\nwant\n%s", c.body, want)
	}
}

func TestOpenAIKeyRequiredOnlyForOpenAI(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	if _, err := New("openai", Config{}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("api.openai.com without a key: %v", err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-env")
	p, err := New("openai", Config{})
	if err != nil || p.Name() != "openai/gpt-4o-mini" {
		t.Errorf("with env key: %v, %v", p, err)
	}
	if _, err := New("openai", Config{BaseURL: "http://127.0.0.1:8080/v1"}); err != nil {
		t.Errorf("local server needs no key: %v", err)
	}
}

func TestAnthropicWire(t *testing.T) {
	srv, calls := fakeServer(t, 200, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"{\"facts\":[]}"}],"stop_reason":"end_turn"}`)
	p, err := New("anthropic", Config{BaseURL: srv.URL, APIKey: "sk-ant-test", MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "anthropic/claude-haiku-4-5" {
		t.Errorf("Name %q", p.Name())
	}
	out, err := p.Generate(context.Background(), "extract", extract.GenerateOptions{JSON: true})
	if err != nil || out != `{"facts":[]}` {
		t.Fatalf("Generate = %q, %v", out, err)
	}
	c := (*calls)[0]
	if c.method != "POST" || c.path != "/v1/messages" || c.header.Get("x-api-key") != "sk-ant-test" || c.header.Get("anthropic-version") != "2023-06-01" {
		t.Errorf("request %s %s headers %v", c.method, c.path, c.header)
	}
	if want := `{"model":"claude-haiku-4-5","max_tokens":300,"messages":[{"role":"user","content":"extract"}]}`; c.body != want {
		t.Errorf("body\n%s\nwant\n%s", c.body, want)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := New("anthropic", Config{}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-env")
	if _, err := New("anthropic", Config{}); err != nil {
		t.Errorf("env key: %v", err)
	}
}

func TestAnthropicErrorBodyAndRedaction(t *testing.T) {
	srv, _ := fakeServer(t, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-secret"}}`)
	p, _ := New("anthropic", Config{BaseURL: srv.URL, APIKey: "sk-ant-secret"})
	_, err := p.Generate(context.Background(), "x", extract.GenerateOptions{})
	e := wantErr(t, err, "anthropic at "+srv.URL+"/v1/messages", "HTTP 401", "authentication_error", "[redacted]", "check the API key")
	if strings.Contains(err.Error(), "sk-ant-secret") || e.StatusCode != 401 {
		t.Errorf("key leaked or status wrong: %v", err)
	}
}

func TestHTTPErrors(t *testing.T) {
	// A port with nothing listening.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + l.Addr().String()
	l.Close()

	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release: // the test is over: Close need not wait 5 s
		case <-time.After(5 * time.Second):
		}
	}))
	defer hang.Close()
	defer close(release)
	s500, _ := fakeServer(t, 500, `{"error":"model \"llama3.2:3b\" not found, try pulling it first"}`)
	bad, _ := fakeServer(t, 200, `{"response": "unterminated`)
	empty, _ := fakeServer(t, 200, `{"choices":[]}`)
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"response":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range 10 {
			io.WriteString(w, chunk)
		}
	}))
	defer huge.Close()

	gen := func(provider, base string, opts extract.GenerateOptions) error {
		p, err := New(provider, Config{BaseURL: base, APIKey: "k", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Generate(context.Background(), "x", opts)
		return err
	}
	wantErr(t, gen("ollama", down, extract.GenerateOptions{}), "ollama at "+down+"/api/generate", "not reachable")
	e := wantErr(t, gen("ollama", s500.URL, extract.GenerateOptions{}), "HTTP 500", `model "llama3.2:3b" not found`)
	if e.StatusCode != 500 {
		t.Errorf("status %d", e.StatusCode)
	}
	wantErr(t, gen("ollama", bad.URL, extract.GenerateOptions{}), "malformed JSON answer")
	wantErr(t, gen("openai", empty.URL, extract.GenerateOptions{}), "openai at "+empty.URL+"/chat/completions", "no choices")
	wantErr(t, gen("ollama", huge.URL, extract.GenerateOptions{}), "answer larger than")

	start := time.Now()
	err := gen("ollama", hang.URL, extract.GenerateOptions{Timeout: 100 * time.Millisecond})
	wantErr(t, err, "no answer within 100ms")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("timeout: %v after %v", err, time.Since(start))
	}

	p, _ := New("anthropic", Config{BaseURL: hang.URL, APIKey: "k"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = p.Generate(ctx, "x", extract.GenerateOptions{})
	wantErr(t, err, "request abandoned")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}
}

func TestNewConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"bogus", Config{}, "want one of"},
		{"ollama", Config{BaseURL: "localhost:11434"}, "http://"},
		{"ollama", Config{BaseURL: "http://h/?x=1"}, "query"},
		{"ollama", Config{Timeout: -1}, "negative"},
	} {
		_, err := New(tc.name, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %+v) = %v, want %q", tc.name, tc.cfg, err, tc.want)
		}
	}
	p, err := New("", Config{Provider: "heuristic"})
	if err != nil || p.Name() != "heuristic" {
		t.Errorf("Provider field: %v %v", p, err)
	}
}

func TestHeuristicProvider(t *testing.T) {
	p, err := New("heuristic", Config{})
	if err != nil {
		t.Fatal(err)
	}
	memory := "We switched from MySQL to PostgreSQL for JSONB support. The API server uses Redis for rate limiting."
	out, err := p.Generate(context.Background(), extract.ExtractionPrompt(memory), extract.GenerateOptions{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	r, ws := extract.ParseExtraction(out)
	if len(r.Facts) != 2 || r.Facts[0].Type != "decision" || len(r.Entities) == 0 || len(ws) != 0 {
		t.Errorf("extraction through the prompt: %+v, warnings %q", r, ws)
	}

	fact := extract.Fact{Content: "The API server uses Redis for rate limiting.", Type: "fact", Confidence: 0.75}
	cands := []extract.Candidate{{ID: "m1", Type: "fact", Content: "Deploys run on Fridays."}, {ID: "m2", Type: "fact", Content: "the API server uses Redis for rate limiting"}}
	out, err = p.Generate(context.Background(), extract.DecisionPrompt(fact, cands), extract.GenerateOptions{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	d, ws := extract.ParseDecision(out, []string{"m1", "m2"})
	if d.Action != "none" || d.TargetID != "m2" || len(ws) != 0 {
		t.Errorf("duplicate decision %+v %q", d, ws)
	}
	out, _ = p.Generate(context.Background(), extract.DecisionPrompt(fact, cands[:1]), extract.GenerateOptions{})
	if d, _ := extract.ParseDecision(out, []string{"m1"}); d.Action != "add" || d.Confidence != 0.75 {
		t.Errorf("new fact decision %+v", d)
	}
	_, err = p.Generate(context.Background(), "write me a poem", extract.GenerateOptions{})
	wantErr(t, err, "heuristic", "only cairn's extraction and decision prompts")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Generate(ctx, extract.ExtractionPrompt(memory), extract.GenerateOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled ctx: %v", err)
	}
	var _ = json.Valid
}

// fakeClaude writes a `claude` script into a temp dir placed first on PATH.
// It answers --version, and for -p checks its arguments, that the prompt
// arrived on stdin, that CAIRN_NO_HOOKS=1 is set and that the session and
// cairn variables were removed, then prints a JSON envelope.
func fakeClaude(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\n" + body
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	return dir
}

const claudeScript = `
if [ "$1" = "--version" ]; then echo "2.1.0 (Claude Code)"; exit 0; fi
if [ "$*" != "-p --model haiku --output-format json --no-session-persistence" ]; then echo "bad args: $*" >&2; exit 2; fi
if [ "$CAIRN_NO_HOOKS" != "1" ]; then echo "CAIRN_NO_HOOKS not set" >&2; exit 3; fi
if [ -n "$CLAUDECODE" ] || [ -n "$CAIRN_TOKEN" ]; then echo "session env leaked" >&2; exit 4; fi
read -r line
if [ "$line" != "PROMPT-MARKER hello" ]; then echo "prompt not on stdin: $line" >&2; exit 5; fi
printf '%s' '{"type":"result","subtype":"success","is_error":false,"duration_ms":1200,"result":"{\"facts\":[{\"content\":\"from the fake claude CLI\"}]}","session_id":"abc","total_cost_usd":0.001}'
`

func TestClaudeCode(t *testing.T) {
	fakeClaude(t, claudeScript)
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("CAIRN_TOKEN", "secret")
	p, err := New("claude-code", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "claude-code/haiku" {
		t.Errorf("Name %q", p.Name())
	}
	out, err := p.Generate(context.Background(), "PROMPT-MARKER hello\nmore lines\n", extract.GenerateOptions{JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if out != `{"facts":[{"content":"from the fake claude CLI"}]}` {
		t.Errorf("result %q", out)
	}
	// Wrong prompt: the script exits 5; the error carries its stderr.
	_, err = p.Generate(context.Background(), "other", extract.GenerateOptions{})
	wantErr(t, err, "claude-code at ", "exited with status 5", "prompt not on stdin")
}

func TestClaudeCodeErrors(t *testing.T) {
	fakeClaude(t, `cat >/dev/null; printf '%s' '{"type":"result","subtype":"error_during_execution","is_error":true,"result":"Credit balance is too low"}'`)
	p, _ := New("claude-code", Config{})
	_, err := p.Generate(context.Background(), "x", extract.GenerateOptions{})
	wantErr(t, err, "reported an error", "Credit balance is too low")

	fakeClaude(t, `cat >/dev/null; echo "not json"`)
	_, err = p.Generate(context.Background(), "x", extract.GenerateOptions{})
	wantErr(t, err, "malformed JSON envelope")

	fakeClaude(t, `cat >/dev/null; exec sleep 30`)
	start := time.Now()
	_, err = p.Generate(context.Background(), "x", extract.GenerateOptions{Timeout: 200 * time.Millisecond})
	wantErr(t, err, "no answer within 200ms", "stopped")
	if time.Since(start) > 4*time.Second {
		t.Errorf("hung CLI not killed in time: %v", time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	_, err = p.Generate(ctx, "x", extract.GenerateOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}

	t.Setenv("PATH", t.TempDir()) // no claude at all
	_, err = p.Generate(context.Background(), "x", extract.GenerateOptions{})
	wantErr(t, err, "claude CLI is not on PATH")
}

func TestClaudeEnv(t *testing.T) {
	env := claudeEnv([]string{"PATH=/bin", "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "CAIRN_ADDR=127.0.0.1:7777", "ANTHROPIC_API_KEY=k", "HOME=/h"})
	got := strings.Join(env, " ")
	if got != "PATH=/bin ANTHROPIC_API_KEY=k HOME=/h CAIRN_NO_HOOKS=1" {
		t.Errorf("env %q", got)
	}
}

func TestDetect(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // claude absent
	srv, calls := fakeServer(t, 200, `{"models":[{"name":"llama3.2:3b"}]}`)
	t.Setenv("OLLAMA_HOST", srv.URL)
	if got := Detect(context.Background()); got != "ollama" {
		t.Errorf("Detect with ollama up = %q", got)
	}
	if c := (*calls)[0]; c.method != "GET" || c.path != "/api/tags" {
		t.Errorf("probe %s %s", c.method, c.path)
	}
	srv.Close()
	if got := Detect(context.Background()); got != "heuristic" {
		t.Errorf("Detect with nothing = %q", got)
	}
	// A hanging Ollama is given up on after 1 s.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(hang.URL, "http://"))
	start := time.Now()
	if got := Detect(context.Background()); got != "heuristic" || time.Since(start) > 2500*time.Millisecond {
		t.Errorf("hanging ollama: %q after %v", got, time.Since(start))
	}
	fakeClaude(t, claudeScript)
	if got := Detect(context.Background()); got != "claude-code" {
		t.Errorf("Detect with claude = %q", got)
	}
	fakeClaude(t, "exit 1")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	if got := Detect(context.Background()); got != "heuristic" {
		t.Errorf("broken claude = %q", got)
	}
}
