package shim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/harness"
)

// The shim reads one JSON object from stdin within its wait; anything
// else is nothing to do, except plain text for remember.
func TestReadHookInput(t *testing.T) {
	for name, c := range map[string]struct {
		in     string
		textOK bool
		want   string // the content, "-" for nil
	}{
		"object":             {`{"content":"x"}`, false, "x"},
		"empty":              {``, false, "-"},
		"truncated":          {`{"session_id":"x","prompt":"hel`, false, "-"},
		"array":              {`[1,2]`, false, "-"},
		"text for remember":  {"remember this\n", true, "remember this\n"},
		"text otherwise":     {"remember this", false, "-"},
		"broken object text": {`{"content":`, true, "-"},
	} {
		in := readHookInput(strings.NewReader(c.in), time.Second, c.textOK)
		switch {
		case c.want == "-" && in != nil:
			t.Errorf("%s: read %v", name, in)
		case c.want != "-" && (in == nil || in["content"] != c.want):
			t.Errorf("%s: read %v", name, in)
		}
	}
	huge := bytes.Repeat([]byte("a"), hookStdinLimit+10)
	if in := readHookInput(bytes.NewReader(append(append([]byte(`{"prompt":"`), huge...), '"', '}')), time.Second, false); in != nil {
		t.Error("read more than the limit")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start := time.Now()
	if in := readHookInput(r, 50*time.Millisecond, false); in != nil || time.Since(start) > 5*time.Second {
		t.Errorf("a stdin that never ends: %v after %v", in, time.Since(start))
	}
}

// testHarness is a harness whose remember event spools and whose prompt
// event injects.
var testHarness = harness.Harness{
	Name: "test-harness",
	Events: map[string]harness.Event{
		"remember":           {Path: "remember", Spool: "remember", Timeout: time.Second},
		"user-prompt-submit": {Path: "user-prompt-submit", Name: "Prompt", Timeout: time.Second},
	},
	Print: func(w io.Writer, ev harness.Event, inject string) error {
		_, err := fmt.Fprintf(w, "%s: %s\n", ev.Name, inject)
		return err
	},
}

// With no cairn running and no store yet, a remember is spooled with its
// idempotency key and project, nothing is printed and no error returned;
// an unknown event is an error.
func TestRunWhileCairnIsDown(t *testing.T) {
	home := t.TempDir()
	load := func() (*config.Config, config.Paths, error) {
		cfg, paths, err := config.LoadConfig(config.LoadOptions{Home: home})
		if err != nil {
			return nil, paths, err
		}
		cfg.Hooks.Autostart = false
		return cfg, paths, nil
	}
	if err := Run(context.Background(), testHarness, "no-such-event", Options{Load: load}); err == nil || !strings.Contains(err.Error(), `unknown hook event "no-such-event"`) {
		t.Fatalf("unknown event: %v", err)
	}
	stdin := filepath.Join(t.TempDir(), "stdin")
	os.WriteFile(stdin, []byte(`{"content":"spooled while down","session_id":"s1","cwd":"/work/alpha"}`), 0o600)
	f, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	if err := Run(context.Background(), testHarness, "remember", Options{Load: load}); err != nil {
		t.Fatal(err)
	}
	_, paths, _ := load()
	spooled, _ := filepath.Glob(filepath.Join(SpoolDir(paths.DataDir), "*.json"))
	if len(spooled) != 1 {
		t.Fatalf("spooled %v", spooled)
	}
	b, _ := os.ReadFile(spooled[0])
	for _, want := range []string{`"kind":"remember"`, `spooled while down`, `"harness":"test-harness"`, `"idempotency_key":"hook:`, `"project":"/work/alpha"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the spooled entry has no %s: %s", want, b)
		}
	}
}
