//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/harness"
)

// cli runs the binary with CAIRN_HOME=home and returns stdout, stderr and
// the exit code.
func cli(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	cmd := cairnCmd(home, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// cliOK runs a command that must succeed and returns its stdout.
func cliOK(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, home, args...)
	if code != 0 {
		t.Fatalf("cairn %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

// The daily commands, with the database held by a running cairn (through
// its API) and with none running (the store opened directly).
func TestMemoryCommands(t *testing.T) {
	for _, mode := range []string{"direct", "server"} {
		t.Run(mode, func(t *testing.T) {
			home := t.TempDir()
			if mode == "server" {
				srv := startServer(t, home, freeAddr(t))
				defer srv.stop(t)
			}
			exerciseMemoryCommands(t, home)
		})
	}
}

func exerciseMemoryCommands(t *testing.T, home string) {
	cliOK(t, home, "remember", "--tags", "infra,db", "--project", "atlas", "postgres runs on port 5433 in staging")
	cliOK(t, home, "remember", "--project", "atlas", "--importance", "0.6", "never deploy on fridays")
	cliOK(t, home, "remember", "--project", "zeus", "the zeus build uses bazel")

	// list: one line per memory with its short id; --json has the ids.
	var list struct {
		Memories []struct {
			ID, Content, Project string
			Version              int64
		} `json:"memories"`
	}
	if err := json.Unmarshal([]byte(cliOK(t, home, "list", "--all", "--json")), &list); err != nil || len(list.Memories) != 3 {
		t.Fatalf("list --json: %v %+v", err, list)
	}
	ids := map[string]string{} // content's first word -> id
	for _, m := range list.Memories {
		ids[strings.Fields(m.Content)[0]] = m.ID
	}
	pg := ids["postgres"]
	short := pg[len(pg)-8:]
	out := cliOK(t, home, "list", "--project", "atlas")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(out, short+"  ") || strings.Contains(out, "zeus") {
		t.Fatalf("list --project atlas:\n%s", out)
	}
	if out := cliOK(t, home, "list", "--all", "--tags", "db"); !strings.Contains(out, short) || strings.Count(out, "\n") != 1 {
		t.Fatalf("list --tags db:\n%s", out)
	}
	if out := cliOK(t, home, "list", "--all", "--type", "rule"); !strings.Contains(out, "fridays") || strings.Count(out, "\n") != 1 {
		t.Fatalf("list --type rule:\n%s", out)
	}
	if out, errOut, _ := cli(t, home, "list", "--all", "--limit", "1"); strings.Count(out, "\n") != 1 || !strings.Contains(errOut, "1 of 3") {
		t.Fatalf("list --limit 1: %s / %s", out, errOut)
	}

	// recall prints the short id a result can be acted on with.
	if out := cliOK(t, home, "recall", "which port does postgres use"); !strings.HasPrefix(out, short+"  ") {
		t.Fatalf("recall without the id:\n%s", out)
	}

	// show takes the short id, the full one, and refuses an ambiguous one:
	// ids of memories written in the same minute share their start.
	if out := cliOK(t, home, "show", short); !strings.Contains(out, pg) || !strings.Contains(out, "postgres runs on port 5433") || !strings.Contains(out, "infra,db") {
		t.Fatalf("show:\n%s", out)
	}
	var shown struct{ ID, Content string }
	if err := json.Unmarshal([]byte(cliOK(t, home, "show", pg, "--json")), &shown); err != nil || shown.ID != pg {
		t.Fatalf("show --json: %v %+v", err, shown)
	}
	if _, errOut, code := cli(t, home, "show", pg[:8]); code != 2 || !strings.Contains(errOut, "ambiguous") {
		t.Fatalf("ambiguous short id: exit %d %s", code, errOut)
	}
	if _, errOut, code := cli(t, home, "show", "ffff0000"); code != 1 || !strings.Contains(errOut, "no memory has the id") {
		t.Fatalf("unknown id: exit %d %s", code, errOut)
	}

	// edit with flags, then history shows the change.
	if out := cliOK(t, home, "edit", short, "--content", "postgres runs on port 5434 in staging", "--tags", "infra", "--pinned"); !strings.Contains(out, "version 1 → 2") {
		t.Fatalf("edit: %s", out)
	}
	if out := cliOK(t, home, "show", short); !strings.Contains(out, "5434") || !strings.Contains(out, "pinned:") || strings.Contains(out, "infra,db") {
		t.Fatalf("after edit:\n%s", out)
	}
	if out := cliOK(t, home, "edit", short, "--pinned"); !strings.Contains(out, "no changes") {
		t.Fatalf("edit to the same value: %s", out)
	}
	out = cliOK(t, home, "history", short)
	if !strings.Contains(out, "created") || !strings.Contains(out, "updated") || !strings.Contains(out, "- postgres runs on port 5433") || !strings.Contains(out, "+ postgres runs on port 5434") {
		t.Fatalf("history:\n%s", out)
	}
	var hist []struct{ Event string }
	if err := json.Unmarshal([]byte(cliOK(t, home, "history", short, "--json")), &hist); err != nil || len(hist) != 2 {
		t.Fatalf("history --json: %v %+v", err, hist)
	}

	// An edit in $EDITOR is guarded by the version it read: a change made
	// meanwhile is refused, not overwritten.
	editor := filepath.Join(t.TempDir(), "editor.sh")
	script := fmt.Sprintf("#!/bin/sh\n%q edit %s --tags meanwhile >/dev/null || exit 9\necho 'my slow edit' > \"$1\"\n", cairnBin, short)
	if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	out, code := inTerminal(t, home, []string{"EDITOR=" + editor}, "", "edit", short)
	if code != 1 || !strings.Contains(out, "changed since it was read") {
		t.Fatalf("concurrent edit: exit %d\n%s", code, out)
	}
	if out := cliOK(t, home, "show", short); !strings.Contains(out, "meanwhile") || strings.Contains(out, "my slow edit") {
		t.Fatalf("after the refused edit:\n%s", out)
	}
	// Without a concurrent change the editor's text is saved.
	simple := filepath.Join(t.TempDir(), "editor.sh")
	os.WriteFile(simple, []byte("#!/bin/sh\necho 'postgres runs on port 6000' > \"$1\"\n"), 0o700)
	if out, code := inTerminal(t, home, []string{"EDITOR=" + simple}, "", "edit", short); code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("editor edit: exit %d\n%s", code, out)
	}
	if out := cliOK(t, home, "show", short); !strings.Contains(out, "port 6000") {
		t.Fatalf("after the editor:\n%s", out)
	}

	// forget: refused without a terminal and --yes, asks on one, then
	// --yes; pinned memories need --force.
	if _, errOut, code := cli(t, home, "forget", short); code != 2 || !strings.Contains(errOut, "--yes") {
		t.Fatalf("forget without a terminal: exit %d %s", code, errOut)
	}
	if out, code := inTerminal(t, home, nil, "n\n", "forget", short); code != 0 || !strings.Contains(out, "nothing forgotten") {
		t.Fatalf("forget answered no: exit %d\n%s", code, out)
	}
	if out := cliOK(t, home, "forget", short, "--yes"); !strings.Contains(out, "pinned") || !strings.Contains(out, "forgot 0 of 1") {
		t.Fatalf("forget a pinned memory: %s", out)
	}
	if out, code := inTerminal(t, home, nil, "y\n", "forget", short, "--force"); code != 0 || !strings.Contains(out, "forgot 1 of 1") {
		t.Fatalf("forget answered yes: exit %d\n%s", code, out)
	}
	if out := cliOK(t, home, "list", "--all"); strings.Contains(out, short) {
		t.Fatalf("forgotten memory still listed:\n%s", out)
	}
	if out := cliOK(t, home, "list", "--all", "--deleted"); !strings.Contains(out, short) {
		t.Fatalf("list --deleted:\n%s", out)
	}
	// recover brings it back; recovering again is refused.
	if out := cliOK(t, home, "recover", short); !strings.Contains(out, "recovered "+short) {
		t.Fatalf("recover: %s", out)
	}
	if _, errOut, code := cli(t, home, "recover", short); code != 1 || !strings.Contains(errOut, "not deleted") {
		t.Fatalf("recover twice: exit %d %s", code, errOut)
	}

	// forget --query: the preview is what gets forgotten, within --project;
	// --json prints one answer, what was done.
	out = cliOK(t, home, "forget", "--query", "bazel build", "--project", "zeus", "--yes", "--json")
	var res struct {
		Mode    string `json:"mode"`
		Deleted int    `json:"deleted"`
		Results []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Mode != "execute" || res.Deleted != 1 || len(res.Results) != 1 || res.Results[0].ID != ids["the"] {
		t.Fatalf("forget --query result: %v %s", err, out)
	}
	if out := cliOK(t, home, "forget", "--query", "bazel build", "--project", "atlas", "--yes"); !strings.Contains(out, "nothing to forget") {
		t.Fatalf("forget --query in another project: %s", out)
	}
}

// inTerminal runs the binary on a pseudo-terminal (util-linux script) with
// input typed in, and returns what the terminal showed and the exit code.
func inTerminal(t *testing.T, home string, env []string, input string, args ...string) (string, int) {
	t.Helper()
	line := harness.ShellQuote(cairnBin)
	for _, a := range args {
		line += " " + harness.ShellQuote(a)
	}
	cmd := exec.Command("script", "-qec", line, "/dev/null")
	cmd.Env = append(append(os.Environ(), "CAIRN_HOME="+home), env...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("script: %v", err)
	}
	return string(out), 0
}

// Help is an answer: on stdout, exit 0, for `cairn help`, `cairn help CMD`
// and `cairn CMD -h`; flag defaults read sensibly.
func TestHelpOnStdout(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"remember", "-h"}, {"help", "remember"}, {"remember", "--help"}} {
		out, errOut, code := cli(t, home, args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: cairn remember") {
			t.Fatalf("%v: exit %d stdout %q stderr %q", args, code, out, errOut)
		}
		if strings.Contains(out, "(default -1)") || !strings.Contains(out, "(memory.default_importance; 1 with --critical) (default 0.8)") {
			t.Fatalf("%v: importance default:\n%s", args, out)
		}
	}
	for _, c := range []string{"list", "show", "edit", "forget", "recover", "history", "completion", "install"} {
		if out, _, code := cli(t, home, "help", c); code != 0 || !strings.HasPrefix(out, "usage: cairn "+c) {
			t.Fatalf("help %s: exit %d %s", c, code, out)
		}
	}
	out, _, code := cli(t, home, "help")
	if code != 0 || !strings.Contains(out, "forget") || !strings.Contains(out, "completion") {
		t.Fatalf("help: %d %s", code, out)
	}
	if _, errOut, code := cli(t, home, "help", "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("help of an unknown command: %d %s", code, errOut)
	}
	if _, errOut, code := cli(t, home, "list", "--bogus"); code != 2 || !strings.Contains(errOut, "cairn list -h") {
		t.Fatalf("bad flag: %d %s", code, errOut)
	}
}

func TestCompletionScripts(t *testing.T) {
	home := t.TempDir()
	bash := cliOK(t, home, "completion", "bash")
	if err := exec.Command("bash", "-n", "-c", bash).Run(); err != nil {
		t.Fatalf("bash script does not parse: %v", err)
	}
	for _, want := range []string{"complete -o default -F _cairn cairn", "forget) if", "--yes", "--query", "fact preference decision", "dark"} {
		if !strings.Contains(bash, want) {
			t.Errorf("bash script lacks %q", want)
		}
	}
	// The bash function completes a command's flags and --type values.
	for _, c := range []struct{ line, want string }{
		{"cairn forg", "forget"},
		{"cairn forget --y", "--yes"},
		{"cairn list --type pre", "preference"},
		{"cairn install cl", "claude-code"},
	} {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		probe := bash + fmt.Sprintf("\nCOMP_WORDS=(%s); COMP_CWORD=%d; _cairn; echo \"${COMPREPLY[@]}\"\n", strings.Join(words, " "), len(words)-1)
		out, err := exec.Command("bash", "-c", probe).Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%q completes to %q (%v), want %s", c.line, out, err, c.want)
		}
	}
	fish := cliOK(t, home, "completion", "fish")
	if !strings.Contains(fish, "-l type") || !strings.Contains(fish, "'"+strings.Join(core.KnownTypes, " ")+"'") || !strings.Contains(fish, "-a forget") {
		t.Fatalf("fish script:\n%s", fish)
	}
	zsh := cliOK(t, home, "completion", "zsh")
	if !strings.HasPrefix(zsh, "#compdef cairn") || !strings.Contains(zsh, "'--yes:") {
		t.Fatalf("zsh script:\n%s", zsh)
	}
	if zshBin, err := exec.LookPath("zsh"); err == nil {
		if out, err := exec.Command(zshBin, "-n", "-c", zsh).CombinedOutput(); err != nil {
			t.Fatalf("zsh script does not parse: %v %s", err, out)
		}
	}
	if _, _, code := cli(t, home, "completion", "powershell"); code != 2 {
		t.Fatalf("unknown shell: exit %d", code)
	}
}
