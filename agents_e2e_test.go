//go:build integration

package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/agenttest"
)

// The real-client tests: each runs an agent CLI, installed from npm at its
// pinned version (core/harness/agenttest), headless in a throwaway home
// where `cairn install` put cairn's hooks and MCP server, against a
// scripted model (core/harness/modeltest) and a real `cairn serve` of the
// binary TestMain built. They check what reached the model and what cairn
// recorded.

// agentRig is the world of one real-client test.
type agentRig struct {
	home      *agenttest.Home
	cairnHome string
	srv       *server
	// project is the repository the agent works in (a folder holding
	// .git); cwd is the folder inside it where the CLI runs, so that a
	// hook resolving the project from cwd has something to resolve.
	project, cwd string
	// defaultHome: cairn runs without CAIRN_HOME, at its default place
	// in home (newAgentRigAtDefaultHome).
	defaultHome bool
}

// newAgentRig starts cairn on a free loopback port with its own
// CAIRN_HOME, and makes the home and the project.
func newAgentRig(t testing.TB) *agentRig {
	t.Helper()
	r := &agentRig{home: agenttest.NewHome(t), cairnHome: t.TempDir()}
	r.project = filepath.Join(t.TempDir(), "atlas")
	r.cwd = filepath.Join(r.project, "service")
	for _, d := range []string{filepath.Join(r.project, ".git"), r.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.srv = startServer(t, r.cairnHome, freeAddr(t))
	t.Cleanup(func() { r.srv.stop(t) })
	// The hooks and the MCP server the CLI starts inherit its
	// environment: this is how they find this cairn (its lock file holds
	// the address).
	r.home.Setenv("CAIRN_HOME=" + r.cairnHome)
	return r
}

// newAgentRigAtDefaultHome is newAgentRig for a user who never set
// CAIRN_HOME nor the XDG folders: cairn keeps its files at its defaults
// under the home folder (~/.local/share/cairn, …), and serve, install,
// the hooks and the CLI run with that environment.
func newAgentRigAtDefaultHome(t testing.TB) *agentRig {
	t.Helper()
	r := &agentRig{home: agenttest.NewHome(t), defaultHome: true}
	r.home.Setenv("XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "XDG_STATE_HOME=")
	r.cairnHome = r.home.Path(".local", "share", "cairn")
	r.project = filepath.Join(t.TempDir(), "atlas")
	r.cwd = filepath.Join(r.project, "service")
	for _, d := range []string{filepath.Join(r.project, ".git"), r.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	cmd := exec.Command(cairnBin, "serve", "--addr", addr)
	cmd.Env = r.home.Env()
	r.srv = startServerCmd(t, cmd, addr)
	t.Cleanup(func() { r.srv.stop(t) })
	if _, err := os.Stat(filepath.Join(r.cairnHome, "memories.db")); err != nil {
		t.Fatalf("cairn serve did not keep its store at the default place: %v", err)
	}
	return r
}

// api is the base URL of the rig's cairn.
func (r *agentRig) api() string { return "http://" + r.srv.addr }

// install runs `cairn install AGENT` in the home, as a user would, with
// --force: the binary TestMain built sits in the system's temporary
// folder, which install refuses as a build that will be gone (true for a
// user, not for this test).
func (r *agentRig) install(t testing.TB, agent string, args ...string) string {
	t.Helper()
	cmd := exec.Command(cairnBin, append([]string{"install", agent, "--force"}, args...)...)
	cmd.Env = r.home.Env()
	if !r.defaultHome {
		cmd.Env = append(cmd.Env, "CAIRN_HOME="+r.cairnHome)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn install %s: %v\n%s", agent, err, out)
	}
	return string(out)
}

// remember stores a memory through the API and returns its id.
func (r *agentRig) remember(t testing.TB, body map[string]any) string {
	t.Helper()
	code, out := postJSON(t, r.api()+"/api/memory/remember", body)
	if code != http.StatusOK {
		t.Fatalf("remember %v: %d %v", body, code, out)
	}
	return out["id"].(string)
}

// get decodes the JSON answer of GET path into out.
func (r *agentRig) get(t *testing.T, path string, out any) {
	t.Helper()
	resp, err := http.Get(r.api() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// apiMemory is a memory as GET /api/memories lists it.
type apiMemory struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Type    string `json:"type"`
	Project string `json:"project"`
	Who     string `json:"who"`
}

// memories lists the project's memories.
func (r *agentRig) memories(t *testing.T) []apiMemory {
	t.Helper()
	var list struct {
		Memories []apiMemory `json:"memories"`
	}
	r.get(t, "/api/memories?limit=100&project="+url.QueryEscape(r.project), &list)
	return list.Memories
}

// apiSession is a session as GET /api/sessions/{key} shows it.
type apiSession struct {
	Key             string `json:"key"`
	Harness         string `json:"harness"`
	Project         string `json:"project"`
	EndedAt         string `json:"ended_at"`
	PromptCount     int    `json:"prompt_count"`
	TranscriptChars int    `json:"transcript_chars"`
	Transcript      string `json:"transcript"`
	Continuity      struct {
		Checkpoints []struct {
			Trigger string `json:"trigger"`
			Digest  string `json:"digest"`
		} `json:"checkpoints"`
	} `json:"continuity"`
}

func (r *agentRig) session(t *testing.T, key string) apiSession {
	t.Helper()
	var s apiSession
	r.get(t, "/api/sessions/"+url.PathEscape(key), &s)
	return s
}

// sessionOf is the one session cairn recorded for harness in the rig's
// project (GET /api/sessions, then the session itself).
func (r *agentRig) sessionOf(t *testing.T, harness string) apiSession {
	t.Helper()
	var list struct {
		Sessions []apiSession `json:"sessions"`
	}
	r.get(t, "/api/sessions?limit=100", &list)
	var keys []string
	for _, s := range list.Sessions {
		if s.Harness == harness {
			keys = append(keys, s.Key)
		}
	}
	if len(keys) != 1 {
		t.Fatalf("want one %s session, cairn has %+v", harness, list.Sessions)
	}
	return r.session(t, keys[0])
}

// The memories of a real-client test: one important enough for session
// start, one only the prompt hook can bring (a score of 0.2 or less is
// left out of session start), and the prompt that finds it.
const (
	e2eStartMem  = "Atlas builds with make ci from the repository root; plain go build misses the generated protobuf code"
	e2ePromptMem = "The atlas deploy script lives in scripts/ship.sh and needs ATLAS_REGION set"
	e2ePrompt    = "Where does the atlas deploy script live?"
	e2eStored    = "The atlas staging database runs Postgres 16 on port 5433"
)

// rememberE2E stores the two memories of a real-client test.
func (r *agentRig) rememberE2E(t testing.TB) {
	t.Helper()
	r.remember(t, map[string]any{"content": e2eStartMem, "project": r.project, "importance": 0.9})
	r.remember(t, map[string]any{"content": e2ePromptMem, "project": r.project, "importance": 0.1})
}

// checkInjected checks that text, what the model got in the turn's
// request, holds the session-start context of the rig's project with the
// important memory and the prompt hook's recall of the other one.
func (r *agentRig) checkInjected(t *testing.T, text string) {
	t.Helper()
	start := between(text, "[cairn:context", "[/cairn:context]")
	if !strings.Contains(start, "project="+r.project+" ") || !strings.Contains(start, e2eStartMem) {
		t.Errorf("session-start context of project %s with %q did not reach the model; it got:\n%s", r.project, e2eStartMem, start)
	}
	if strings.Contains(start, e2ePromptMem) {
		t.Errorf("the unimportant memory was in the session-start context, so the prompt hook is not tested:\n%s", start)
	}
	if recall := between(text, "[cairn:recall", "[/cairn:recall]"); !strings.Contains(recall, e2ePromptMem) {
		t.Errorf("the prompt hook's memory %q did not reach the model; recall block: %q\nrequest text:\n%s", e2ePromptMem, recall, text)
	}
}

// checkStored checks that the model's memory_store call landed in the
// rig's project (the project of the CLI's working directory, as Claude
// Code's does) and returns it.
func (r *agentRig) checkStored(t *testing.T, toolAnswer string) apiMemory {
	t.Helper()
	for _, m := range r.memories(t) {
		if m.Content == e2eStored {
			if !strings.Contains(toolAnswer, m.ID) {
				t.Errorf("the tool's answer does not name the memory %s: %q", m.ID, toolAnswer)
			}
			return m
		}
	}
	t.Fatalf("no memory %q in project %s; the tool said %q", e2eStored, r.project, toolAnswer)
	return apiMemory{}
}
