//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTokenCreateAcceptedByTeamServer(t *testing.T) {
	home := t.TempDir()
	// The token is signed before cairn runs: the command creates the secret.
	out, err := cairnCmd(home, "token", "create", "--role", "agent", "--project", "alpha", "--ttl", "1h").Output()
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	tok := strings.TrimSpace(string(out))
	if strings.Count(tok, ".") != 1 {
		t.Fatalf("token %q", tok)
	}
	matches, _ := filepath.Glob(filepath.Join(home, "*", "auth-secret"))
	if len(matches) == 0 {
		matches, _ = filepath.Glob(filepath.Join(home, "auth-secret"))
	}
	if len(matches) != 1 {
		t.Fatalf("auth-secret not in the data folder of %s", home)
	}
	if st, _ := os.Stat(matches[0]); st.Mode().Perm() != 0o600 {
		t.Fatalf("secret mode %v", st.Mode())
	}
	if err := cairnCmd(home, "token", "create", "--role", "god").Run(); err == nil {
		t.Fatal("invalid role accepted")
	}

	addr := freeAddr(t)
	cmd := cairnCmd(home, "serve", "--addr", addr)
	cmd.Env = append(cmd.Env, "CAIRN_AUTH_MODE=team")
	var stderr lockedBuffer // read while the server still writes to it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
	}()
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	call := func(method, path, token string, body any) (int, map[string]any) {
		t.Helper()
		var rd *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if code, _ := call("GET", "/api/memories", "", nil); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	code, who := call("GET", "/api/auth/whoami", tok, nil)
	if code != 200 || who["authenticated"] != true || who["mode"] != "team" {
		t.Fatalf("whoami: %d %v", code, who)
	}
	if code, m := call("POST", "/api/memory/remember", tok, map[string]any{"content": "signed by the cli"}); code != 200 || m["project"] != "alpha" {
		t.Fatalf("remember: %d %v", code, m)
	}
	if code, _ := call("POST", "/api/auth/token", tok, map[string]any{"role": "admin"}); code != 403 {
		t.Fatalf("agent minted a token: %d", code)
	}
	// The CLI reaches a team-mode cairn with CAIRN_TOKEN, and not without.
	if out, err := cairnCmd(home, "recall", "signed").CombinedOutput(); err == nil {
		t.Fatalf("recall without a token succeeded: %s", out)
	}
	withToken := cairnCmd(home, "recall", "signed")
	withToken.Env = append(withToken.Env, "CAIRN_TOKEN="+tok)
	if out, err := withToken.CombinedOutput(); err != nil || !strings.Contains(string(out), "signed by the cli") {
		t.Fatalf("recall with CAIRN_TOKEN: %v %s", err, out)
	}
	// Tokens never reach the log.
	logs, _ := filepath.Glob(filepath.Join(home, "*", "*.log"))
	more, _ := filepath.Glob(filepath.Join(home, "*", "*", "*.log"))
	for _, f := range append(logs, more...) {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), tok) {
			t.Fatalf("token in log %s", f)
		}
	}
	if strings.Contains(stderr.String(), tok) {
		t.Fatal("token on stderr")
	}
}
