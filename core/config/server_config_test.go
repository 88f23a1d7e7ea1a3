package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAllowedOriginsAndHosts(t *testing.T) {
	env := envOf(map[string]string{
		"CAIRN_HOME":                   t.TempDir(),
		"CAIRN_SERVER_ALLOWED_ORIGINS": "https://Dash.Example.com, http://localhost:5173",
		"CAIRN_SERVER_ALLOWED_HOSTS":   "cairn.internal",
	})
	cfg, _, err := LoadConfig(LoadOptions{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Server.AllowedOrigins, []string{"https://Dash.Example.com", "http://localhost:5173"}) ||
		!slices.Equal(cfg.Server.AllowedHosts, []string{"cairn.internal"}) {
		t.Fatalf("lists from the environment: %q %q", cfg.Server.AllowedOrigins, cfg.Server.AllowedHosts)
	}

	for _, bad := range []struct{ key, value, want string }{
		{"server.allowed_origins", "https://dash.example.com/app", "no path"},
		{"server.allowed_origins", "dash.example.com", "origin like"},
		{"server.allowed_origins", "ftp://dash.example.com", "http or https"},
		{"server.allowed_origins", "https://*.example.com", "wildcards"},
		{"server.allowed_hosts", "http://cairn.internal", "host name"},
		{"server.allowed_hosts", "*", "host name"},
	} {
		c := DefaultConfig()
		if err := c.Set(bad.key, bad.value); err != nil {
			t.Fatal(err)
		}
		var ce *ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Key != bad.key || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s = %q: %v, want a ConfigError naming the key and %q", bad.key, bad.value, err, bad.want)
		}
	}
}

func TestNormalizeOriginAndHost(t *testing.T) {
	for in, want := range map[string]string{
		"https://Dash.Example.com": "https://dash.example.com",
		"http://localhost:5173/":   "http://localhost:5173",
		"http://[::1]:3850":        "http://[::1]:3850",
		" http://127.0.0.1:8080 ":  "http://127.0.0.1:8080",
	} {
		if got, err := NormalizeOrigin(in); err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"localhost:3850": "localhost", "LOCALHOST": "localhost", "[::1]:3850": "::1", "[::1]": "::1", "::1": "::1",
		"127.0.0.1": "127.0.0.1", "cairn.internal.:80": "cairn.internal", "": "",
	} {
		if got := NormalizeHost(in); got != want {
			t.Errorf("NormalizeHost(%q) = %q, want %q", in, got, want)
		}
	}
}
