//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -h shows each default as the config file and the environment make it,
// and cairn config prints what a special value means, never -1 (issue 30).
func TestHelpShowsEffectiveDefaults(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(`[server]
addr = "127.0.0.1:3999"
[memory]
default_importance = 0.6
[auth]
token_ttl = "2h"
`), 0o600)
	help := func(env string, args ...string) string {
		t.Helper()
		cmd := cairnCmd(home, args...)
		cmd.Env = append(cmd.Env, env)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := help("CAIRN_LOG_LEVEL=debug", "remember", "-h")
	for _, want := range []string{`(default "127.0.0.1:3999")`, "(default 0.6)", `(default "debug")`,
		`(default "` + filepath.Join(home, "memories.db") + `")`, `(default "` + filepath.Join(home, "config.toml") + `")`, `(default "` + home + `")`} {
		if !strings.Contains(out, want) {
			t.Errorf("remember -h lacks %s:\n%s", want, out)
		}
	}
	if out := help("", "token", "-h"); !strings.Contains(out, "(default 2h0m0s)") {
		t.Errorf("token -h does not show auth.token_ttl:\n%s", out)
	}
	if out := help("", "list", "--addr", "127.0.0.1:4111", "-h"); !strings.Contains(out, `(default "127.0.0.1:4111")`) {
		t.Errorf("a flag given before -h is not the default shown:\n%s", out)
	}
	if out := help("CAIRN_AUTH_MODE=nope", "list", "-h"); !strings.Contains(out, "the configuration does not load") || !strings.Contains(out, "auth.mode") {
		t.Errorf("list -h with a bad configuration:\n%s", out)
	}

	out = help("", "config")
	if strings.Contains(out, "-1") || !strings.Contains(out, `min_vector_similarity = "auto" #`) || !strings.Contains(out, `max_memories_per_project = "off" #`) {
		t.Errorf("config prints a sentinel:\n%s", out)
	}
	var c struct{ Config map[string]map[string]any }
	if err := json.Unmarshal([]byte(help("", "config", "--json")), &c); err != nil || c.Config["search"]["min_vector_similarity"] != "auto" {
		t.Errorf("config --json: %v %v", err, c.Config["search"])
	}
	// What config prints loads back.
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(out), 0o600)
	help("", "config")
}

// cairn list in a project with no memories says where they are.
func TestListSaysWhereMemoriesAre(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"remember", "--project", "alpha", "the staging database runs on port 5433"},
		{"remember", "--project", "beta", "we deploy with kamal"},
		{"remember", "--project", "beta", "the billing cron runs at four"},
		{"remember", "--scope", "user", "the user prefers dark mode"},
	} {
		if out, err := cairnCmd(home, args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	list := func(args ...string) (string, string) {
		t.Helper()
		cmd := cairnCmd(home, append([]string{"list"}, args...)...)
		cmd.Dir = t.TempDir() // a folder with no memories: its own project
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("list %v: %v\n%s", args, err, stderr.String())
		}
		return string(out), stderr.String()
	}
	check := func(how string) {
		t.Helper()
		if out, msg := list(); out != "" || !strings.Contains(msg, "no memories match in project ") ||
			!strings.Contains(msg, "; 1 in no project, 3 in 2 other projects: cairn list --all") {
			t.Errorf("%s: list in an empty project: %q %q", how, out, msg)
		}
		if _, msg := list("--type", "rule"); !strings.HasSuffix(strings.TrimSpace(msg), ", nor anywhere else") {
			t.Errorf("%s: list of a type nothing has: %q", how, msg)
		}
		if out, _ := list("--all"); strings.Count(out, "\n") != 4 {
			t.Errorf("%s: list --all: %q", how, out)
		}
	}
	check("in process")
	srv := startServer(t, home, freeAddr(t))
	defer srv.stop(t)
	check("through the running cairn")
}

// cairn recall of words nothing stored contains answers as the API does,
// in process and through a running cairn: one code path
// (core.Service.Recall with its relevance floor, VectorFloor), never a
// copy of it in the CLI.
func TestRecallFloorIsTheAPIs(t *testing.T) {
	home := t.TempDir()
	for _, m := range []string{"the staging database runs on port 5433", "we deploy with kamal to hetzner",
		"prefer tabs over spaces in Go code", "the user likes dark mode", "the billing cron runs at four in the morning",
		"release notes go in CHANGELOG.md", "never force-push to main", "the CI cache lives in a bucket in eu-west-1"} {
		if out, err := cairnCmd(home, "remember", m).CombinedOutput(); err != nil {
			t.Fatalf("remember: %v\n%s", err, out)
		}
	}
	type result struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
		BelowFloor int `json:"belowFloor"`
	}
	ids := func(r result) string {
		var s []string
		for _, h := range r.Results {
			s = append(s, h.ID)
		}
		return strings.Join(s, ",")
	}
	cli := func(how string) (result, string) {
		t.Helper()
		out, err := cairnCmd(home, "recall", "--json", "zzqx florp").Output()
		var r result
		if err != nil || json.Unmarshal(out, &r) != nil {
			t.Fatalf("%s: %v\n%s", how, err, out)
		}
		human, err := cairnCmd(home, "recall", "zzqx florp").CombinedOutput()
		if err != nil || (len(r.Results) == 0) != strings.Contains(string(human), "no memory is about this") {
			t.Fatalf("%s: %v\n%s", how, err, human)
		}
		return r, string(human)
	}
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	waitEmbedded(t, "http://"+addr)
	code, body := postJSON(t, "http://"+addr+"/api/memory/recall", map[string]any{"query": "zzqx florp", "track": false})
	raw, _ := json.Marshal(body)
	var api result
	if code != 200 || json.Unmarshal(raw, &api) != nil {
		t.Fatalf("API recall: %d %s", code, raw)
	}
	through, _ := cli("through the running cairn")
	srv.stop(t)
	local, _ := cli("in process")
	if ids(through) != ids(api) || ids(local) != ids(api) || through.BelowFloor != api.BelowFloor || local.BelowFloor != api.BelowFloor {
		t.Fatalf("the CLI answers otherwise than the API: API %q (%d below the floor), through it %q (%d), in process %q (%d)",
			ids(api), api.BelowFloor, ids(through), through.BelowFloor, ids(local), local.BelowFloor)
	}
	t.Logf("zzqx florp: %d results, %d below the floor", len(api.Results), api.BelowFloor)
}
