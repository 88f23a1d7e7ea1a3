//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryCommandBar runs the real binary over every command (issue 30):
// a bad flag exits 2 (a usage error), --json prints one valid JSON value
// where the command prints data, a failure exits 1 with "cairn: " and the
// reason, and every configuration key an error names exists. A command
// added to commands() without a row here fails the test.
func TestEveryCommandBar(t *testing.T) {
	home := t.TempDir()
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "missing.db")
	settings := filepath.Join(tmp, "settings.json")
	notJSON := filepath.Join(tmp, "not.json")
	os.WriteFile(notJSON, []byte("not json"), 0o600)
	notDir := filepath.Join(tmp, "file")
	os.WriteFile(notDir, []byte("x"), 0o600)

	run := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := cairnCmd(home, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), exitStatus(err)
	}
	out, stderr, code := run("", "remember", "--json", "the release train leaves on tuesdays")
	var rem struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &rem) != nil || rem.ID == "" {
		t.Fatalf("remember: %d %s %s", code, out, stderr)
	}
	export, _, _ := run("", "export")
	exportFile := filepath.Join(tmp, "export.jsonl")
	os.WriteFile(exportFile, []byte(export), 0o600)

	type row struct {
		name string
		// bad is the exit status of a bad flag: 2, but the hook shim exits
		// 1 on any mistake (an agent reads 2 as "block this prompt").
		bad int
		// json runs the command with --json (nil: it prints no data as JSON).
		json []string
		// fail makes the command fail (nil: nothing it does can fail).
		fail []string
		// stdin is the input of the json and fail runs.
		stdin string
	}
	rows := []row{
		{name: "serve", bad: 2, fail: []string{"serve", "--db", missing}},
		{name: "remember", bad: 2, json: []string{"remember", "--json", "we deploy with kamal"}, fail: []string{"remember", "--db", missing, "x"}},
		{name: "recall", bad: 2, json: []string{"recall", "--json", "release train"}, fail: []string{"recall", "--db", missing, "x"}},
		{name: "list", bad: 2, json: []string{"list", "--json"}, fail: []string{"list", "--db", missing}},
		{name: "show", bad: 2, json: []string{"show", "--json", rem.ID}, fail: []string{"show", "ffffffff"}},
		{name: "edit", bad: 2, json: []string{"edit", "--json", rem.ID, "--tags", "release"}, fail: []string{"edit", "ffffffff", "--tags", "x"}},
		{name: "history", bad: 2, json: []string{"history", "--json", rem.ID}, fail: []string{"history", "--db", missing, rem.ID}},
		{name: "forget", bad: 2, json: []string{"forget", "--json", "--yes", rem.ID}, fail: []string{"forget", "--yes", "ffffffff"}},
		{name: "recover", bad: 2, json: []string{"recover", "--json", rem.ID}, fail: []string{"recover", "ffffffff"}},
		{name: "mcp", bad: 2, fail: []string{"mcp", "--db", missing}},
		{name: "export", bad: 2, fail: []string{"export", "--db", missing}},
		{name: "import", bad: 2, json: []string{"import", "--json", exportFile}, fail: []string{"import", filepath.Join(tmp, "none.jsonl")}},
		{name: "config", bad: 2, json: []string{"config", "--json"}, fail: []string{"config", "--config", filepath.Join(tmp, "none.toml")}},
		{name: "bench", bad: 2, fail: []string{"bench", "locomo", "--data", filepath.Join(tmp, "none.json")}},
		{name: "hook", bad: 1, fail: []string{"hook", "no-such-event"}, stdin: "{}"},
		{name: "install", bad: 2, json: []string{"install", "claude-code", "--json", "--force", "--no-mcp", "--extractor", "heuristic", "--settings", settings},
			fail: []string{"install", "claude-code", "--no-mcp", "--settings", settings}},
		{name: "uninstall", bad: 2, json: []string{"uninstall", "claude-code", "--json", "--no-mcp", "--settings", settings},
			fail: []string{"uninstall", "claude-code", "--no-mcp", "--settings", notJSON}},
		{name: "service", bad: 2, json: []string{"service", "status", "--json"}},
		{name: "token", bad: 2, json: []string{"token", "create", "--role", "readonly", "--json"}, fail: []string{"token", "create", "--role", "readonly", "--home", notDir}},
		{name: "status", bad: 2, json: []string{"status", "--json"}, fail: []string{"status", "--db", missing}},
		{name: "completion", bad: 2},
		{name: "version", bad: 2, json: []string{"version", "--json"}},
	}
	byName := map[string]row{}
	for _, r := range rows {
		byName[r.name] = r
	}
	for _, c := range commands() {
		if _, ok := byName[c.name]; !ok {
			t.Errorf("cairn %s has no row in the bar: add what a bad flag, --json and a failure do", c.name)
		}
	}

	var errorTexts []string
	for _, r := range rows {
		_, stderr, code := run("{}", r.name, "--no-such-flag")
		if code != r.bad || !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("cairn %s --no-such-flag exits %d, want %d: %s", r.name, code, r.bad, stderr)
		}
		if r.json != nil {
			out, stderr, code := run(r.stdin, r.json...)
			dec := json.NewDecoder(strings.NewReader(out))
			var v any
			errDecode := dec.Decode(&v)
			_, errMore := dec.Token()
			if code != 0 || errDecode != nil || errMore != io.EOF {
				t.Errorf("cairn %v: exit %d, not one JSON value (%v, %v):\n%s\n%s", r.json, code, errDecode, errMore, out, stderr)
			}
		}
		if r.fail != nil {
			_, stderr, code := run(r.stdin, r.fail...)
			if code != 1 || !strings.HasPrefix(stderr, "cairn: ") {
				t.Errorf("cairn %v exits %d, want 1 with the reason: %s", r.fail, code, stderr)
			}
			errorTexts = append(errorTexts, stderr)
		}
	}
	// export prints JSON Lines, one memory a line.
	for _, l := range strings.Split(strings.TrimSpace(export), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("export line is not JSON: %s", l)
		}
	}

	// Every section.key an error names is a key of the configuration.
	out, _, _ = run("", "config", "--json")
	var cfg struct{ Config map[string]map[string]any }
	if err := json.Unmarshal([]byte(out), &cfg); err != nil {
		t.Fatal(err)
	}
	_, stderr, _ = run("", "config")
	errorTexts = append(errorTexts, stderr)
	cmd := cairnCmd(home, "list")
	cmd.Env = append(cmd.Env, "CAIRN_SEARCH_MIN_SCORE=2")
	b, _ := cmd.CombinedOutput()
	errorTexts = append(errorTexts, string(b))
	key := regexp.MustCompile(`\b([a-z_0-9]+)\.([a-z_0-9]+)\b`)
	for _, text := range errorTexts {
		for _, m := range key.FindAllStringSubmatch(text, -1) {
			sec, ok := cfg.Config[m[1]]
			if !ok || strings.Contains(text, m[0]+"/") || slices.Contains([]string{"json", "toml", "db", "jsonl", "md", "js"}, m[2]) {
				continue
			}
			if _, ok := sec[m[2]]; !ok {
				t.Errorf("an error names %s, which is no configuration key: %s", m[0], text)
			}
		}
	}
}
