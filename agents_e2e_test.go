//go:build integration

package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
}

// newAgentRig starts cairn on a free loopback port with its own
// CAIRN_HOME, and makes the home and the project.
func newAgentRig(t *testing.T) *agentRig {
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

// api is the base URL of the rig's cairn.
func (r *agentRig) api() string { return "http://" + r.srv.addr }

// install runs `cairn install AGENT` in the home, as a user would.
// TMPDIR points into the home: the binary TestMain built sits in the
// system's temporary folder, which install refuses as a build that will
// be gone (true for a user, not for this test).
func (r *agentRig) install(t *testing.T, agent string) string {
	t.Helper()
	cmd := cairnCmd(r.cairnHome, "install", agent)
	cmd.Env = append(r.home.Env(), "CAIRN_HOME="+r.cairnHome)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn install %s: %v\n%s", agent, err, out)
	}
	return string(out)
}

// remember stores a memory through the API and returns its id.
func (r *agentRig) remember(t *testing.T, body map[string]any) string {
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
