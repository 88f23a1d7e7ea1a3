package codex

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/cairnmem/cairn/core/harness"
)

// A user's config.toml with comments, odd spacing, a multi-line string
// holding a line that looks like a header, and an inline table.
const userConfig = `# my codex settings
model = "o4"   # the usual
approval_policy = "on-request"

[model_providers.local]
name = "local"
base_url = "http://127.0.0.1:8080/v1"
instructions = """
[not.a.table]
keep me
"""

[mcp_servers.github]
command = "gh-mcp"
args = [
  "--stdio",
]
env = { GH_TOKEN_FILE = "~/.gh" }

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:00"
`

const userHooks = `{
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi", "timeout": 7}]}]
    }
}
`

func opts(t *testing.T) (harness.InstallOptions, string) {
	t.Helper()
	home := t.TempDir()
	o := harness.InstallOptions{Home: home, Bin: "/opt/my tools/cairn", Env: []string{"CAIRN_HOME=/data/cairn", "XDG_DATA_HOME=/xdg/data", "PATH=/bin"}}
	if err := os.MkdirAll(Home(o), 0o700); err != nil {
		t.Fatal(err)
	}
	return o, home
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Install adds the hooks, a trust table per handler whose hash is the
// handler's, and the MCP table with cairn's environment; every line of
// the user's config stays as written; a second install changes nothing;
// uninstall gives back the user's files.
func TestInstallUninstall(t *testing.T) {
	o, _ := opts(t)
	os.WriteFile(ConfigFile(o), []byte(userConfig), 0o600)
	os.WriteFile(HooksFile(o), []byte(userHooks), 0o600)

	changes, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if !c.Changed || c.Backup == "" {
			t.Errorf("%+v", c)
		}
	}
	cfg := read(t, ConfigFile(o))
	if !strings.HasPrefix(cfg, userConfig) {
		t.Fatalf("the user's config changed:\n%s", cfg)
	}
	var decoded struct {
		MCP map[string]struct {
			Command  string            `toml:"command"`
			Args     []string          `toml:"args"`
			Env      map[string]string `toml:"env"`
			Approval string            `toml:"default_tools_approval_mode"`
		} `toml:"mcp_servers"`
		Hooks struct {
			State map[string]struct {
				Hash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
		Providers map[string]struct {
			Instructions string `toml:"instructions"`
		} `toml:"model_providers"`
	}
	if _, err := toml.Decode(cfg, &decoded); err != nil {
		t.Fatal(err)
	}
	c := decoded.MCP["cairn"]
	if c.Command != o.Bin || len(c.Args) != 1 || c.Args[0] != "mcp" || c.Approval != "approve" ||
		c.Env["CAIRN_HOME"] != "/data/cairn" || c.Env["XDG_DATA_HOME"] != "/xdg/data" || c.Env["PATH"] != "" {
		t.Fatalf("mcp_servers.cairn: %+v", c)
	}
	if decoded.Providers["local"].Instructions != "[not.a.table]\nkeep me\n" {
		t.Fatalf("the multi-line string changed: %q", decoded.Providers["local"].Instructions)
	}
	hooksJSON := read(t, HooksFile(o))
	all, err := HookTrust(HooksFile(o), []byte(hooksJSON))
	if err != nil {
		t.Fatal(err)
	}
	ourN := 0
	for _, tr := range all {
		got, trusted := decoded.Hooks.State[tr.Key]
		if !ours(tr.Command) {
			if trusted {
				t.Errorf("the user's hook %q was trusted by cairn", tr.Command)
			}
			continue
		}
		ourN++
		if !trusted || got.Hash != tr.Hash {
			t.Errorf("%s: trusted %q, want %q", tr.Key, got.Hash, tr.Hash)
		}
		if !strings.HasPrefix(tr.Command, "'/opt/my tools/cairn' hook --harness codex ") {
			t.Errorf("command %q", tr.Command)
		}
	}
	if ourN != len(hooks) {
		t.Fatalf("%d of cairn's hooks trusted, want %d:\n%s", ourN, len(hooks), hooksJSON)
	}

	changes, err = Install(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Changed {
			t.Errorf("second install changed %s", c.File)
		}
	}

	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, ConfigFile(o)); got != userConfig {
		t.Fatalf("after uninstall the config is\n%s\nwant\n%s", got, userConfig)
	}
	var before, after any
	json.Unmarshal([]byte(userHooks), &before)
	json.Unmarshal([]byte(read(t, HooksFile(o))), &after)
	if b1, _ := json.Marshal(before); string(b1) != func() string { b2, _ := json.Marshal(after); return string(b2) }() {
		t.Fatalf("after uninstall the hooks are\n%s", read(t, HooksFile(o)))
	}
	if changes, _ := Uninstall(o); changes[0].Changed || changes[1].Changed {
		t.Fatal("a second uninstall changed something")
	}
}

// A moved binary is updated in place: same tables, new command and hash;
// the user's own keys in cairn's table stay; a foreign cairn entry and an
// inline one are refused, with nothing written.
func TestReinstallAndRefusals(t *testing.T) {
	o, _ := opts(t)
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	cfg := read(t, ConfigFile(o))
	cfg = strings.Replace(cfg, `default_tools_approval_mode = "approve"`+"\n", `default_tools_approval_mode = "approve"`+"\nstartup_timeout_sec = 30 # mine\n", 1)
	os.WriteFile(ConfigFile(o), []byte(cfg), 0o600)
	o.Bin = "/usr/local/bin/cairn"
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	cfg = read(t, ConfigFile(o))
	if strings.Contains(cfg, "/opt/my tools") || !strings.Contains(cfg, "startup_timeout_sec = 30 # mine") || strings.Count(cfg, "[mcp_servers.cairn]") != 1 {
		t.Fatalf("reinstall:\n%s", cfg)
	}
	if n := strings.Count(cfg, "[hooks.state."); n != len(hooks) {
		t.Fatalf("%d trust tables after reinstall:\n%s", n, cfg)
	}
	if _, err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, ConfigFile(o)); strings.TrimSpace(got) != "" {
		t.Fatalf("left after uninstall of a config cairn made: %q", got)
	}

	for name, cfg := range map[string]string{
		"foreign": "[mcp_servers.cairn]\ncommand = \"npx\"\nargs = [\"other-cairn\"]\n",
		"inline":  "mcp_servers = { cairn = { command = \"cairn\", args = [\"mcp\"] } }\n",
		"invalid": "[mcp_servers\n",
	} {
		o, _ := opts(t)
		os.WriteFile(ConfigFile(o), []byte(cfg), 0o600)
		if _, err := Install(o); err == nil {
			t.Errorf("%s: installed", name)
		}
		if got := read(t, ConfigFile(o)); got != cfg {
			t.Errorf("%s: config written: %q", name, got)
		}
	}
}

// HookTrust gives one entry per command handler, keyed as Codex keys it
// (whether Codex accepts the hashes is checked against the real CLI:
// TestCodexHookTrust in core/harness/agenttest and the Codex real-client
// test, whose hooks run only when trusted).
func TestHookTrustShape(t *testing.T) {
	const path = "/h/.codex/hooks.json"
	hooksJSON := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"a b","timeout":10}]}],
		"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"x"},{"type":"prompt","prompt":"p"}]}]}}`
	got, err := HookTrust(path, []byte(hooksJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Key != path+":session_start:0:0" || got[1].Key != path+":user_prompt_submit:0:0" {
		t.Fatalf("%+v", got)
	}
	for _, tr := range got {
		if !strings.HasPrefix(tr.Hash, "sha256:") || len(tr.Hash) != len("sha256:")+64 {
			t.Fatalf("hash %q", tr.Hash)
		}
	}
	if _, err := HookTrust(path, []byte(`{"hooks":[]}`)); err == nil {
		t.Fatal("a bad hooks.json was read")
	}
	if tables := TrustTOML(got); !strings.Contains(tables, `[hooks.state."/h/.codex/hooks.json:session_start:0:0"]`) {
		t.Fatalf("tables:\n%s", tables)
	}
}

// The table reader keeps every byte, finds headers (quoted keys, array
// tables, comments after them) and ignores header-like lines inside
// strings and arrays.
func TestParseTOML(t *testing.T) {
	src := "a = 1\n[x . \"y.z\" . 'w'] # c\nk = [\n  \"[q]\",\n]\ns = '''\n[r]\n'''\n[[arr]]\nn = 1\n[t]\nlast = \"no newline\""
	d := parseTOML(src)
	if d.String() != src {
		t.Fatalf("round trip:\n%s", d.String())
	}
	var keys []string
	for _, tb := range d.tables {
		keys = append(keys, strings.Join(tb.key, "|"))
	}
	if strings.Join(keys, " ") != "x|y.z|w arr t" || !d.tables[1].array {
		t.Fatalf("tables %v", keys)
	}
	d.put(&tomlTable{key: []string{"new"}, lines: []string{"[new]\n", "v = 1\n"}})
	if !strings.HasSuffix(d.String(), "last = \"no newline\"\n\n[new]\nv = 1\n") {
		t.Fatalf("append:\n%s", d.String())
	}
	if _, err := toml.Decode(d.String(), &map[string]any{}); err != nil {
		t.Fatal(err)
	}
}
