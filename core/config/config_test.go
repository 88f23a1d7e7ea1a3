package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigDefaultsValidate(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	if cfg.Server.Addr != "127.0.0.1:3850" || cfg.Auth.Mode != "local" {
		t.Fatalf("unexpected defaults: %+v", cfg.Server)
	}
}

func TestConfigPrecedence(t *testing.T) {
	home := t.TempDir()
	file := `[server]
addr = "127.0.0.1:4000"
[auth]
mode = "local"
[memory]
max_batch = 50
forget_confirm_threshold = 10
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"CAIRN_HOME":             home,
		"CAIRN_MEMORY_MAX_BATCH": "70",
		"CAIRN_ADDR":             "127.0.0.1:5000",
	}
	cfg, paths, err := LoadConfig(LoadOptions{Getenv: envOf(env), Overrides: map[string]string{"server.addr": "127.0.0.1:6000"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:6000" {
		t.Errorf("flag should win: addr = %s", cfg.Server.Addr)
	}
	if cfg.Memory.MaxBatch != 70 {
		t.Errorf("env should win over file: max_batch = %d", cfg.Memory.MaxBatch)
	}
	if cfg.Memory.ForgetConfirmThreshold != 10 {
		t.Errorf("file should win over default: threshold = %d", cfg.Memory.ForgetConfirmThreshold)
	}
	if paths.Database != filepath.Join(home, "memories.db") || paths.LogFile != filepath.Join(home, "logs", "cairn.log") {
		t.Errorf("CAIRN_HOME paths wrong: %+v", paths)
	}

	cfg, _, err = LoadConfig(LoadOptions{Getenv: envOf(env)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Addr != "127.0.0.1:5000" {
		t.Errorf("CAIRN_ADDR should win over the file: %s", cfg.Server.Addr)
	}
}

func TestConfigXDGPaths(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "relative/ignored"}
	_, p, err := LoadConfig(LoadOptions{Getenv: envOf(env)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Database != "/data/cairn/memories.db" {
		t.Errorf("database = %s", p.Database)
	}
	if p.ConfigFile != "/home/u/.config/cairn/config.toml" {
		t.Errorf("config file = %s (a relative XDG_CONFIG_HOME must be ignored)", p.ConfigFile)
	}
	if p.LogFile != "/home/u/.local/state/cairn/cairn.log" {
		t.Errorf("log file = %s", p.LogFile)
	}
}

func TestConfigErrorsNameKeyValueAndRange(t *testing.T) {
	tests := []struct {
		name, file string
		env        map[string]string
		want       []string
	}{
		{"out of range", "[memory]\nmax_batch = 0\n", nil, []string{"memory.max_batch", "0", "1 to 10000"}},
		{"bad enum", "[auth]\nmode = \"open\"\n", nil, []string{"auth.mode", `"open"`, "local, team, hybrid"}},
		{"unknown key", "[server]\nadr = \"x\"\n", nil, []string{"server.adr", "unknown key"}},
		{"bad duration", "[memory]\nrecover_window = \"soon\"\n", nil, []string{"recover_window", "duration"}},
		{"bad toml", "[server\n", nil, []string{"line 2"}},
		{"env type", "", map[string]string{"CAIRN_MEMORY_MAX_BATCH": "many"}, []string{"CAIRN_MEMORY_MAX_BATCH", `"many"`, "integer"}},
		{"env range", "", map[string]string{"CAIRN_GUARDRAILS_MAX_CONTENT_CHARS": "10"}, []string{"guardrails.max_content_chars", "10", "50 to 100000"}},
		{"non-loopback in local mode", "[server]\naddr = \"0.0.0.0:3850\"\n", nil, []string{"server.addr", "loopback", "team or hybrid"}},
		{"no host", "[server]\naddr = \":3850\"\n", nil, []string{"server.addr", "host"}},
		{"cross-key rule", "[guardrails]\nchunk_target_chars = 900\n", nil, []string{"chunk_target_chars", "max_content_chars"}},
		{"NaN", "[memory]\ndefault_importance = nan\n", nil, []string{"memory.default_importance", "0 to 1"}},
		{"storage.url not PostgreSQL's", "[storage]\nurl = \"mysql://u@h/db\"\n", nil, []string{"storage.url", "postgres://"}},
		{"storage.url beside storage.path", "[storage]\nurl = \"postgres://u@h/db\"\npath = \"/x/m.db\"\n", nil, []string{"storage.url", "storage.path"}},
		{"storage.url without a host", "[storage]\nurl = \"postgres:///db\"\n", nil, []string{"storage.url", "postgres://user@host"}},
		{"password file without a URL", "[storage]\npassword_file = \"/run/pw\"\n", nil, []string{"storage.password_file", "storage.url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.file != "" {
				os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.file), 0o600)
			}
			env := map[string]string{"CAIRN_HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			_, _, err := LoadConfig(LoadOptions{Getenv: envOf(env)})
			if err == nil {
				t.Fatal("expected an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestConfigEveryKeyFromEnvAndRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	for _, k := range cfg.Keys() {
		if !strings.Contains(k, ".") || EnvName(k) != "CAIRN_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_")) {
			t.Fatalf("bad key %q", k)
		}
	}
	// The printed config parses back to the same config.
	home := t.TempDir()
	cfg.Memory.RecoverWindow = Duration(48 * time.Hour)
	cfg.Auth.Mode = "team"
	cfg.Server.AllowedOrigins = []string{"https://dash.example.com", "http://localhost:5173"}
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg.TOML()), 0o600)
	got, _, err := LoadConfig(LoadOptions{Getenv: envOf(map[string]string{"CAIRN_HOME": home})})
	if err != nil {
		t.Fatalf("printed config does not load: %v\n%s", err, cfg.TOML())
	}
	if !reflect.DeepEqual(*got, cfg) {
		t.Fatalf("round trip changed the config:\n%+v\n%+v", *got, cfg)
	}
	var ce *ConfigError
	if err := cfg.Set("nope.key", "1"); !errors.As(err, &ce) {
		t.Fatalf("Set of an unknown key: %v", err)
	}
}

func FuzzConfigFile(f *testing.F) {
	def := DefaultConfig()
	f.Add([]byte(def.TOML()))
	f.Add([]byte("[server]\naddr = \"127.0.0.1:1\"\n[memory]\nmax_batch = 3"))
	f.Add([]byte("[[x]]\na=1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := DefaultConfig()
		if err := decodeConfigFile(data, &cfg); err != nil {
			return
		}
		_ = cfg.Validate() // must not panic, whatever was decoded
	})
}

// A special value prints as its word, never as its number (-1 for auto),
// and the word loads back from the file and from the environment.
func TestConfigSpecialValuesAreWords(t *testing.T) {
	def := DefaultConfig()
	out := def.TOML()
	for _, want := range []string{`min_vector_similarity = "auto" # the floor measured`, `prompt_min_similarity = "auto"`,
		`max_concurrent = "auto" # two per CPU`, `max_memories_per_project = "off" # no bound`} {
		if !strings.Contains(out, want) {
			t.Errorf("config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-1.0") {
		t.Errorf("config prints a sentinel:\n%s", out)
	}
	home := t.TempDir()
	file := "[search]\nmin_vector_similarity = \"auto\" # as printed\n[server]\nmax_concurrent = 3\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := LoadConfig(LoadOptions{Home: home, Getenv: envOf(map[string]string{"CAIRN_HOOKS_PROMPT_MIN_SIMILARITY": "AUTO"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Search.MinVectorSimilarity != -1 || cfg.Hooks.PromptMinSimilarity != -1 || cfg.Server.MaxConcurrent != 3 {
		t.Errorf("words did not load: %v %v %v", cfg.Search.MinVectorSimilarity, cfg.Hooks.PromptMinSimilarity, cfg.Server.MaxConcurrent)
	}
	if !strings.Contains(cfg.TOML(), "max_concurrent = 3\n") {
		t.Errorf("a set value is shown as its number")
	}
}

// A mistake in the file (its syntax, a value of the wrong type) is a
// configuration error naming the line and key, as a value out of range is.
func TestConfigFileMistakesAreConfigErrors(t *testing.T) {
	for _, file := range []string{"[search\n", "[search]\nmin_vector_similarity = \"autox\"\n", "[server]\nmax_concurrent = \"lots\"\n"} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600)
		_, _, err := LoadConfig(LoadOptions{Home: home, Getenv: envOf(nil)})
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %T %v", file, err, err)
		}
	}
}

// memory.extra_types takes type names only: a refused one is named with
// its key.
func TestExtraTypesAreNames(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Memory.ExtraTypes = []string{"incident", "run-book_2"}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("good types refused: %v", err)
	}
	for _, bad := range []string{"Incident", "two words", "", "9lives", strings.Repeat("a", 33)} {
		cfg.Memory.ExtraTypes = []string{bad}
		var ce *ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) || ce.Key != "memory.extra_types" {
			t.Errorf("extra type %q: %v", bad, err)
		}
	}
}

// storage.url's password is never shown: not in the printed config, not
// in a configuration error, not in the database path shown.
func TestStorageURLPasswordNeverShown(t *testing.T) {
	const secret = "Hunter2-s3cr3t"
	for _, url := range []string{"postgres://cairn:" + secret + "@db.example:5432/cairn", "postgresql://cairn@db.example/cairn?password=" + secret} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.toml"), []byte("[storage]\nurl = \""+url+"\"\n"), 0o600)
		cfg, paths, err := LoadConfig(LoadOptions{Getenv: envOf(map[string]string{"CAIRN_HOME": home})})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Storage.URL != url {
			t.Fatalf("storage.url = %q", cfg.Storage.URL)
		}
		for what, shown := range map[string]string{"the printed config": cfg.TOML(), "the database path": paths.Database} {
			if strings.Contains(shown, secret) || !strings.Contains(shown, "db.example") {
				t.Errorf("%s: %s", what, shown)
			}
		}
		cfg.Storage.Path = "/x/m.db"
		if err := cfg.Validate(); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("error: %v", err)
		}
	}
}
