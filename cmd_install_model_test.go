package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/config"
)

func TestSetConfigValueChangesOnlyItsLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	for _, tc := range []struct{ name, before, want string }{
		{"missing file", "", "[pipeline_v2]\nprovider = \"claude-code\"\n"},
		{"no section", "# mine\n[hooks]\nprompt_chars = 800\n", "# mine\n[hooks]\nprompt_chars = 800\n\n[pipeline_v2]\nprovider = \"claude-code\"\n"},
		{"section without the key", "[pipeline_v2]\nconcurrency = 2\n\n[hooks]\ncross_project = true\n",
			"[pipeline_v2]\nprovider = \"claude-code\"\nconcurrency = 2\n\n[hooks]\ncross_project = true\n"},
		{"key replaced", "[pipeline_v2] # the model\nprovider = \"auto\" # default\nmodel = \"haiku\"\n",
			"[pipeline_v2] # the model\nprovider = \"claude-code\"\nmodel = \"haiku\"\n"},
		{"dotted key", "pipeline_v2.provider = \"ollama\"\n[hooks]\nprompt_chars = 800\n", "pipeline_v2.provider = \"claude-code\"\n[hooks]\nprompt_chars = 800\n"},
		{"another section's key", "[reranker]\nprovider = \"http\"\n", "[reranker]\nprovider = \"http\"\n\n[pipeline_v2]\nprovider = \"claude-code\"\n"},
	} {
		os.Remove(path)
		if tc.before != "" {
			os.WriteFile(path, []byte(tc.before), 0o600)
		}
		if err := setConfigValue(path, "pipeline_v2", "provider", "claude-code"); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	// A file that does not parse is left as it was.
	os.WriteFile(path, []byte("[pipeline_v2\nprovider = \n"), 0o600)
	if err := setConfigValue(path, "pipeline_v2", "provider", "heuristic"); err == nil || !strings.Contains(err.Error(), "left unchanged") {
		t.Fatalf("broken file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "[pipeline_v2\nprovider = \n" {
		t.Fatalf("broken file changed: %q", got)
	}
}

// Installing never picks the agent's CLI on its own: without an answer
// (no terminal) nothing is chosen and the way to choose is printed;
// --extractor records the choice, which the configuration then reads.
func TestInstallAsksBeforeUsingTheAgentsCLI(t *testing.T) {
	home := t.TempDir()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho 1.0\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := &installFlags{common: &commonFlags{home: home}}
	var out bytes.Buffer
	if err := chooseExtractor(f, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "config.toml")); !os.IsNotExist(err) {
		t.Fatalf("a choice was written without an answer: %v", err)
	}
	if !strings.Contains(out.String(), "--extractor claude-code") || !strings.Contains(out.String(), "subscription") {
		t.Fatalf("the way to choose is not said:\n%s", out.String())
	}
	f.extractor = "claude-code"
	out.Reset()
	if err := chooseExtractor(f, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.LoadConfig(config.LoadOptions{Home: home})
	if err != nil || cfg.PipelineV2.Provider != "claude-code" {
		t.Fatalf("provider after --extractor claude-code: %q, %v", cfg.PipelineV2.Provider, err)
	}
	f.extractor = "gpt"
	if err := chooseExtractor(f, strings.NewReader(""), &out); err == nil || !strings.Contains(err.Error(), "--extractor") {
		t.Fatalf("bad --extractor: %v", err)
	}
}
