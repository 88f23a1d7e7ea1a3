//go:build integration

// Package agenttest runs the real coding-agent CLIs (Claude Code, Codex
// CLI, Gemini CLI, OpenCode) headless in integration tests: it installs
// the pinned version of each with npm into a cache folder (never
// globally), makes a throwaway home for a run, and runs the CLI there
// with a deadline, killing what it leaves behind. Point the CLI at a
// scripted model from core/harness/modeltest with the environment and
// config helpers of clients.go.
//
// Tests that need a CLI skip, saying why, when npm is missing and no
// cached install is there, unless CAIRN_REQUIRE_AGENTS is set (CI sets
// it): then they fail.
package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// CLI is one agent CLI at the version the tests pin.
type CLI struct {
	// Name names its cache folder (Name@Version).
	Name string
	// Package and Version are what npm installs.
	Package, Version string
	// Bin is its command in node_modules/.bin.
	Bin string
}

// The pinned CLIs: the versions agent-clients.md measured against a
// scripted model (bump one only with its tests passing against it).
var (
	ClaudeCode = CLI{Name: "claude-code", Package: "@anthropic-ai/claude-code", Version: "2.1.328", Bin: "claude"}
	Codex      = CLI{Name: "codex", Package: "@openai/codex", Version: "0.169.0", Bin: "codex"}
	Gemini     = CLI{Name: "gemini", Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini"}
	OpenCode   = CLI{Name: "opencode", Package: "opencode-ai", Version: "1.18.33", Bin: "opencode"}
)

// All are the four pinned CLIs.
var All = []CLI{ClaudeCode, Codex, Gemini, OpenCode}

// String is the CLI as npm names it: package@version.
func (c CLI) String() string { return c.Package + "@" + c.Version }

// RequireEnv, when set to anything, turns a skip for a missing npm into a
// failure.
const RequireEnv = "CAIRN_REQUIRE_AGENTS"

// CacheEnv names the cache folder's root; default: the user's cache
// folder (XDG_CACHE_HOME, else ~/.cache) + /cairn-agents.
const CacheEnv = "CAIRN_AGENT_CACHE"

// installTimeout bounds one npm install (about 10 s each with a warm
// registry; the largest, Codex, is ~400 MB).
const installTimeout = 10 * time.Minute

// CacheDir is where cli is (or will be) installed: CAIRN_AGENT_CACHE or
// ~/.cache/cairn-agents, then NAME@VERSION.
func CacheDir(cli CLI) (string, error) {
	root := os.Getenv(CacheEnv)
	if root == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder (set %s): %w", CacheEnv, err)
		}
		root = filepath.Join(c, "cairn-agents")
	}
	return filepath.Join(root, cli.Name+"@"+cli.Version), nil
}

// Install returns the path of cli's command, installing the pinned
// version with npm into its cache folder first when it is not there. It
// skips the test when npm is missing (fails when CAIRN_REQUIRE_AGENTS is
// set), and fails it when the install does.
func Install(t testing.TB, cli CLI) string {
	t.Helper()
	bin, err := install(cli)
	var missing *npmMissingError
	switch {
	case errors.As(err, &missing) && os.Getenv(RequireEnv) == "":
		t.Skipf("%s is not installed and %v; install Node.js and npm to run this test (with %s set it fails instead)", cli, err, RequireEnv)
	case err != nil:
		t.Fatalf("install %s: %v", cli, err)
	}
	return bin
}

type npmMissingError struct{ err error }

func (e *npmMissingError) Error() string { return "npm is not on PATH: " + e.err.Error() }

// install does Install's work, holding a lock on the cache folder so that
// tests (and test binaries) that need the same CLI at once install it
// once.
func install(cli CLI) (string, error) {
	dir, err := CacheDir(cli)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "node_modules", ".bin", cli.Bin)
	if installed(dir, cli) {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", &npmMissingError{err}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if installed(dir, cli) { // another test installed it while we waited
		return bin, nil
	}
	// Into a fresh folder, moved into place once complete: a killed
	// install never leaves a half folder that looks installed.
	tmp := dir + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--no-update-notifier", "--loglevel=error", cli.String())
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s: %w\n%s", cli, err, out)
	}
	if !installed(tmp, cli) {
		return "", fmt.Errorf("npm installed %s into %s but %s or its package.json at version %s is missing", cli, tmp, cli.Bin, cli.Version)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return bin, nil
}

// installed reports whether dir holds cli at its pinned version.
func installed(dir string, cli CLI) bool {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", cli.Bin)); err != nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(cli.Package), "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	return json.Unmarshal(data, &pkg) == nil && pkg.Version == cli.Version
}

// Home is a throwaway home folder for one CLI run, and the environment
// that confines the CLI to it: HOME, the XDG folders and TMPDIR inside it,
// PATH and the locale from the test's environment, and nothing else of it
// (no API key, no CAIRN_HOME, no agent setting of the developer's leaks
// in).
type Home struct {
	// Dir is the home folder.
	Dir string
	env map[string]string
}

// NewHome makes a home folder in the test's temporary folder.
func NewHome(t testing.TB) *Home {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home")
	h := &Home{Dir: dir, env: map[string]string{}}
	for k, rel := range map[string]string{
		"HOME":            "",
		"XDG_CONFIG_HOME": ".config",
		"XDG_DATA_HOME":   ".local/share",
		"XDG_CACHE_HOME":  ".cache",
		"XDG_STATE_HOME":  ".local/state",
		"TMPDIR":          "tmp",
	} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		h.env[k] = p
	}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "USER", "LOGNAME", "SHELL"} {
		if v, ok := os.LookupEnv(k); ok {
			h.env[k] = v
		}
	}
	h.env["NO_COLOR"] = "1"
	return h
}

// Path is a path inside the home folder.
func (h *Home) Path(rel ...string) string { return filepath.Join(append([]string{h.Dir}, rel...)...) }

// Setenv sets a variable of the runs' environment; an empty value unsets it.
func (h *Home) Setenv(kv ...string) {
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		if v == "" {
			delete(h.env, k)
			continue
		}
		h.env[k] = v
	}
}

// Env is the runs' environment, as KEY=VALUE.
func (h *Home) Env() []string {
	out := make([]string, 0, len(h.env))
	for k, v := range h.env {
		out = append(out, k+"="+v)
	}
	return out
}

// WriteFile writes data to a path inside the home folder, making its
// folders.
func (h *Home) WriteFile(t testing.TB, rel, data string) string {
	t.Helper()
	p := h.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// RunTimeout bounds one CLI run: a hung CLI fails its test instead of
// stalling the suite. It is a safety net, not a speed check: a headless
// turn takes 1 to 10 s on an idle 2-core machine, but OpenCode took over
// 2 minutes on one shared with three other builds.
const RunTimeout = 5 * time.Minute

// Run is one CLI run to make.
type Run struct {
	Bin  string
	Args []string
	// Dir is the working directory (the agent's project).
	Dir string
	// Stdin is the CLI's standard input; empty: /dev/null (some CLIs
	// wait for stdin when it is open).
	Stdin string
}

// Result is what a run did.
type Result struct {
	Stdout, Stderr string
	// ExitCode is the CLI's exit status (-1: killed at RunTimeout).
	ExitCode int
	Elapsed  time.Duration
}

// Run runs r with the home's environment, in its own process group, and
// kills that group when the CLI exits (MCP servers and hooks it left) or
// at RunTimeout.
func (h *Home) Run(t testing.TB, r Run) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Bin, r.Args...)
	cmd.Dir = r.Dir
	cmd.Env = h.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if r.Stdin != "" {
		cmd.Stdin = strings.NewReader(r.Stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		t.Fatalf("start %s: %v", r.Bin, err)
	}
	err = cmd.Wait()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	// What the CLI started in its group and left running goes with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.ExitCode = -1
		t.Errorf("%s %s: still running after %v; killed\nstdout:\n%s\nstderr:\n%s", filepath.Base(r.Bin), strings.Join(r.Args, " "), RunTimeout, res.Stdout, res.Stderr)
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", r.Bin, err)
	}
	return res
}
