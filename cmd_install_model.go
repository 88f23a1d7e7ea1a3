package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/charmbracelet/x/term"

	"github.com/cairnmem/cairn/core/config"
)

// What learns from sessions in the background is the user's choice: the
// built-in heuristic (no model, the default) or a model. Installing into
// Claude Code is when its own CLI becomes available to cairn, and using
// it spends the user's subscription: install asks (or takes --extractor)
// and writes the answer into the configuration, never deciding alone.

// Extractor choices of cairn install.
const (
	extractorHeuristic  = "heuristic"
	extractorClaudeCode = "claude-code"
)

// chooseExtractor settles what learns from sessions: --extractor when
// given; else, when the claude CLI is on PATH, nothing is chosen yet
// (pipeline_v2.provider is auto) and a person is at the terminal, the
// answer to a question. The choice is written to the config file; with no
// one to ask, nothing is written and the way to choose is printed.
func chooseExtractor(f *installFlags, in io.Reader, out io.Writer) error {
	cfg, paths, err := config.LoadConfig(config.LoadOptions{Home: f.common.home, ConfigFile: f.common.config})
	if err != nil {
		return err
	}
	choice := strings.TrimSpace(f.extractor)
	switch choice {
	case "", extractorHeuristic, extractorClaudeCode:
	default:
		return usageError{fmt.Sprintf("--extractor %q: want heuristic or claude-code", choice)}
	}
	current := cfg.PipelineV2.Provider
	if choice == "" {
		if _, err := exec.LookPath("claude"); err != nil || current != "auto" {
			return nil // no CLI to spend, or the user already chose
		}
		if !term.IsTerminal(os.Stdin.Fd()) {
			fmt.Fprintf(out, "\nLearning from sessions uses the built-in extractor (no model). To let Claude Code's CLI read your sessions too\n"+
				"(it spends your Claude subscription, within %d tokens a day): cairn install claude-code --extractor claude-code\n", cfg.PipelineV2.DailyTokenBudget)
			return nil
		}
		choice = extractorHeuristic
		if confirm(in, out, fmt.Sprintf("\ncairn learns from your Claude Code sessions with its built-in extractor, no model needed.\n"+
			"It can also have Claude Code's CLI (claude -p --model haiku) read each session in the background:\n"+
			"better extraction, paid by your Claude subscription, at most %d tokens a day (pipeline_v2.daily_token_budget).\n"+
			"Use Claude Code's CLI for learning? [y/N] ", cfg.PipelineV2.DailyTokenBudget)) {
			choice = extractorClaudeCode
		}
	}
	if choice == current {
		return nil
	}
	if err := setConfigValue(paths.ConfigFile, "pipeline_v2", "provider", choice); err != nil {
		return fmt.Errorf("record the extractor in %s: %w", paths.ConfigFile, err)
	}
	fmt.Fprintf(out, "learning: pipeline_v2.provider = %q in %s (takes effect when cairn next starts)\n", choice, paths.ConfigFile)
	return nil
}

// tomlSection matches a table header line; its name is group 1.
var tomlSection = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(?:#.*)?$`) })

// setConfigValue sets section.key to the string value in the TOML file at
// path (created when missing), changing only that line (or adding it):
// the rest of the file, comments included, stays as it was. The result is
// checked to parse and to hold the value before it replaces the file.
func setConfigValue(path, section, key, value string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	line := fmt.Sprintf("%s = %q", key, value)
	keyLine := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	dotted := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(section+"."+key) + `\s*=`)
	lines := strings.Split(strings.TrimRight(string(old), "\n"), "\n")
	if len(old) == 0 {
		lines = nil
	}
	done := false
	cur, header := "", -1
	for i, l := range lines {
		if m := tomlSection().FindStringSubmatch(l); m != nil {
			if cur == section && !done {
				break // the section ends without the key
			}
			cur = m[1]
			if cur == section {
				header = i
			}
			continue
		}
		if cur == section && keyLine.MatchString(l) || cur == "" && dotted.MatchString(l) {
			if cur == "" {
				lines[i] = section + "." + line
			} else {
				lines[i] = line
			}
			done = true
			break
		}
	}
	switch {
	case done:
	case header >= 0:
		lines = append(lines[:header+1], append([]string{line}, lines[header+1:]...)...)
	default:
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, "["+section+"]", line)
	}
	body := []byte(strings.Join(lines, "\n") + "\n")
	var check map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(body)).Decode(&check); err != nil {
		return fmt.Errorf("the edited file would not parse (%v); it was left unchanged", err)
	}
	if sec, _ := check[section].(map[string]any); sec == nil || sec[key] != value {
		return fmt.Errorf("could not set %s.%s in it; it was left unchanged", section, key)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
