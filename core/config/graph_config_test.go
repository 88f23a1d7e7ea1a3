package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGraphConfig(t *testing.T) {
	load := func(t *testing.T, file string, env map[string]string) (*Config, error) {
		t.Helper()
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		e := map[string]string{"CAIRN_HOME": home}
		for k, v := range env {
			e[k] = v
		}
		cfg, _, err := LoadConfig(LoadOptions{Getenv: envOf(e)})
		return cfg, err
	}
	cfg, err := load(t, "[graph]\nenabled = false\nboost_weight = 0.25\nboost_timeout = \"200ms\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Graph.Enabled || cfg.Graph.BoostWeight != 0.25 || cfg.Graph.BoostTimeout.D() != 200*time.Millisecond {
		t.Fatalf("graph section not read: %+v", cfg.Graph)
	}
	cfg, err = load(t, "", map[string]string{"CAIRN_GRAPH_BOOST_WEIGHT": "0"})
	if err != nil || cfg.Graph.BoostWeight != 0 || !cfg.Graph.Enabled {
		t.Fatalf("boost_weight 0 (boost off) from the environment: %+v %v", cfg.Graph, err)
	}
	bad := []struct {
		name, file string
		env        map[string]string
		want       []string
	}{
		{"weight above 1", "[graph]\nboost_weight = 1.5\n", nil, []string{"graph.boost_weight", "1.5", "0 to 1"}},
		{"negative weight", "[graph]\nboost_weight = -0.1\n", nil, []string{"graph.boost_weight", "-0.1", "0 to 1"}},
		{"weight NaN", "[graph]\nboost_weight = nan\n", nil, []string{"graph.boost_weight", "0 to 1"}},
		{"weight a string", "[graph]\nboost_weight = \"high\"\n", nil, []string{"boost_weight"}},
		{"timeout zero", "[graph]\nboost_timeout = \"0s\"\n", nil, []string{"graph.boost_timeout", "0s", "1ms to 5s"}},
		{"timeout too long", "[graph]\nboost_timeout = \"1m\"\n", nil, []string{"graph.boost_timeout", "1m0s", "1ms to 5s"}},
		{"timeout not a duration", "[graph]\nboost_timeout = \"soon\"\n", nil, []string{"boost_timeout", "duration"}},
		{"timeout a bare number", "[graph]\nboost_timeout = 500\n", nil, []string{"boost_timeout"}},
		{"enabled not a bool", "", map[string]string{"CAIRN_GRAPH_ENABLED": "maybe"}, []string{"CAIRN_GRAPH_ENABLED", `"maybe"`}},
		{"unknown key", "[graph]\nboostWeight = 0.2\n", nil, []string{"graph.boostWeight", "unknown key"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.file, tt.env)
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
