package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/extract"
)

// ClaudeCode generates with the Claude Code CLI, as Signet does:
//
//	claude -p --model haiku --output-format json --no-session-persistence
//
// with the prompt on stdin, run in the system temp folder (so the project's
// CLAUDE.md and settings are not loaded), and the JSON envelope's "result"
// returned. Recursion protection: the child's environment drops the
// variables that mark a running Claude Code session (CLAUDECODE,
// CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_SSE_PORT, CLAUDE_PROJECT_DIR) and
// every CAIRN_* variable (which would point its hooks back at this cairn),
// and sets CAIRN_NO_HOOKS=1 so cairn's own hook adapter exits at once if
// the CLI runs hooks anyway. The CLI has no token limit flag, so
// MaxTokens is ignored. At most 4 calls run at once; the process is killed
// when ctx ends or the call times out.
type ClaudeCode struct {
	s   settings
	bin string // binary name or path; "claude"
}

// claudeSlots limits concurrent CLI processes to 4, as Signet does
// (docs/design/pipeline.md, "Model providers").
var claudeSlots = make(chan struct{}, 4)

// claudeStripEnv are the variables removed from the CLI's environment, in
// addition to every CAIRN_* variable.
var claudeStripEnv = []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SSE_PORT", "CLAUDE_PROJECT_DIR"}

// NewClaudeCode returns the claude-code provider (default model haiku). The
// binary is looked up on PATH at each call, so installing it later works
// and a missing one is reported by Generate.
func NewClaudeCode(cfg Config) (*ClaudeCode, error) {
	return &ClaudeCode{s: resolve(cfg, DefaultClaudeCodeModel), bin: "claude"}, nil
}

// Name returns "claude-code/<model>".
func (c *ClaudeCode) Name() string { return ProviderClaudeCode + "/" + c.s.model }

// claudeEnv returns env without the session and cairn variables, plus
// CAIRN_NO_HOOKS=1.
func claudeEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := strings.HasPrefix(strings.ToUpper(k), "CAIRN_")
		for _, s := range claudeStripEnv {
			if k == s {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, "CAIRN_NO_HOOKS=1")
}

// cappedBuffer keeps at most max bytes and remembers that more came.
type cappedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.overflow = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

type claudeEnvelope struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Usage   struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Generate runs the CLI once.
func (c *ClaudeCode) Generate(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, error) {
	out, _, err := c.GenerateUsage(ctx, prompt, opts)
	return out, err
}

// GenerateUsage is Generate with the call's tokens, as the CLI's JSON
// envelope reports them (its usage: input, cache and output tokens).
func (c *ClaudeCode) GenerateUsage(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, Usage, error) {
	out, env, err := c.run(ctx, prompt, opts)
	if err != nil {
		return "", Usage{}, err
	}
	u := env.Usage
	return out, usageOf(prompt, out, u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens), nil
}

// run runs the CLI once and returns its result with the envelope.
func (c *ClaudeCode) run(ctx context.Context, prompt string, opts extract.GenerateOptions) (string, claudeEnvelope, error) {
	timeout, _ := c.s.call(opts)
	bin, err := exec.LookPath(c.bin)
	if err != nil {
		return "", claudeEnvelope{}, &Error{Provider: ProviderClaudeCode, URL: c.bin, Msg: "the claude CLI is not on PATH (install Claude Code, or set pipeline_v2.provider to ollama, openai, anthropic or heuristic)", Err: err}
	}
	fail := func(msg string, err error) *Error {
		return &Error{Provider: ProviderClaudeCode, URL: bin, Msg: msg, Err: err}
	}
	select {
	case claudeSlots <- struct{}{}:
		defer func() { <-claudeSlots }()
	case <-ctx.Done():
		return "", claudeEnvelope{}, fail("abandoned while waiting for a free CLI slot", ctx.Err())
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, "-p", "--model", c.s.model, "--output-format", "json", "--no-session-persistence")
	cmd.Stdin = strings.NewReader(prompt)
	cmd.Env = claudeEnv(os.Environ())
	cmd.Dir = os.TempDir()
	cmd.WaitDelay = 2 * time.Second
	stdout := &cappedBuffer{max: MaxResponseBytes}
	stderr := &cappedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", claudeEnvelope{}, fail("call abandoned; the CLI was stopped", ctx.Err())
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return "", claudeEnvelope{}, fail(fmt.Sprintf("no answer within %s (pipeline_v2.timeout); the CLI was stopped", timeout), context.DeadlineExceeded)
	}
	if stdout.overflow {
		return "", claudeEnvelope{}, fail(fmt.Sprintf("answer larger than %d bytes", MaxResponseBytes), nil)
	}
	env, envErr := parseClaudeEnvelope(stdout.Bytes())
	if runErr != nil {
		msg := "the CLI failed"
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			msg = fmt.Sprintf("the CLI exited with status %d", ee.ExitCode())
		}
		if detail := tail(stderr.String(), 500); detail != "" {
			msg += ": " + detail
		} else if envErr == nil && env.Result != "" {
			msg += ": " + tail(env.Result, 500)
		}
		return "", claudeEnvelope{}, fail(msg, runErr)
	}
	if envErr != nil {
		return "", claudeEnvelope{}, fail("malformed JSON envelope on stdout", envErr)
	}
	if env.IsError {
		return "", claudeEnvelope{}, fail("the CLI reported an error ("+env.Subtype+"): "+tail(env.Result, 500), nil)
	}
	return env.Result, env, nil
}

// parseClaudeEnvelope reads the CLI's --output-format json answer: one
// result object, or (with --verbose, in some versions) an array of
// messages whose last "result" entry counts.
func parseClaudeEnvelope(b []byte) (claudeEnvelope, error) {
	b = bytes.TrimSpace(b)
	var env claudeEnvelope
	if len(b) == 0 {
		return env, errors.New("empty output")
	}
	if b[0] == '[' {
		var all []claudeEnvelope
		if err := json.Unmarshal(b, &all); err != nil {
			return env, err
		}
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].Type == "result" {
				return all[i], nil
			}
		}
		return env, errors.New("no result entry")
	}
	err := json.Unmarshal(b, &env)
	return env, err
}

// tail returns the last n bytes of s, trimmed, on one line.
func tail(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = "…" + strings.ToValidUTF8(s[len(s)-n:], "")
	}
	return s
}

// claudeAvailable reports whether `claude --version` succeeds within
// timeout.
func claudeAvailable(ctx context.Context, timeout time.Duration) bool {
	bin, err := exec.LookPath("claude")
	if err != nil {
		return false
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, "--version")
	cmd.Env = claudeEnv(os.Environ())
	cmd.Dir = os.TempDir()
	cmd.WaitDelay = 500 * time.Millisecond
	return cmd.Run() == nil && runCtx.Err() == nil
}
