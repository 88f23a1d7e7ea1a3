package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/claudecode"
	"github.com/cairnmem/cairn/core/harness/codex"
	"github.com/cairnmem/cairn/core/harness/cursor"
	"github.com/cairnmem/cairn/core/harness/gemini"
	"github.com/cairnmem/cairn/core/harness/opencode"
)

// agent is one harness cairn installs into: its hook shim events
// (`cairn hook --harness NAME`) and its installer.
type agent struct {
	name, title string
	hook        harness.Harness
	install     func(harness.InstallOptions) ([]harness.Change, error)
	uninstall   func(harness.InstallOptions) ([]harness.Change, error)
	// restart says how the harness picks the change up.
	restart string
}

// agents are the harnesses `cairn install` knows, in the order help
// lists them.
var agents = []agent{
	{name: "claude-code", title: "Claude Code", hook: claudecode.Harness, restart: "Restart Claude Code (sessions already open keep their old settings)."},
	{name: codex.Name, title: "Codex CLI", hook: codex.Harness, install: codex.Install, uninstall: codex.Uninstall,
		restart: "Start a new Codex session (config.toml trusts cairn's hooks; if you edit one, Codex asks to trust it again)."},
	{name: gemini.Name, title: "Gemini CLI", hook: gemini.Harness, install: gemini.Install, uninstall: gemini.Uninstall,
		restart: "Start a new Gemini CLI session, in a folder you trust (Gemini CLI runs no hooks elsewhere)."},
	{name: opencode.Name, title: "OpenCode", hook: opencode.Harness, install: opencode.Install, uninstall: opencode.Uninstall,
		restart: "Start a new OpenCode session (it loads plugins at start)."},
	{name: cursor.Name, title: "Cursor", hook: cursor.Harness, install: cursor.Install, uninstall: cursor.Uninstall,
		restart: "Restart Cursor (from its documents only: not tested against Cursor itself)."},
}

// agentNamed is the agent called name.
func agentNamed(name string) (agent, bool) {
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == name })
	if i < 0 {
		return agent{}, false
	}
	return agents[i], true
}

func agentNames() string {
	var names []string
	for _, a := range agents {
		names = append(names, a.name)
	}
	return strings.Join(names, " | ")
}

// installFlags are the flags of install and uninstall: which files to
// edit and the binary the hooks run.
type installFlags struct {
	settings, mcpConfig, bin string
	noMCP, force, asJSON     bool
	// extractor is the model choice for learning (install only): "" asks
	// when a person is there to answer.
	extractor string
	common    *commonFlags
}

// installFlagSet registers installFlags for the command name and returns
// them with the parser of its arguments.
func installFlagSet(name string) (*installFlags, func([]string) ([]string, error)) {
	fs, common := newFlagSet(name, name+" [flags] "+agentNames())
	f := &installFlags{common: common}
	fs.StringVar(&f.settings, "settings", "", "Claude Code settings file that gets the hooks (default ~/.claude/settings.json)")
	fs.StringVar(&f.mcpConfig, "mcp-config", "", "Claude Code user config that gets the MCP server (default ~/.claude.json)")
	fs.StringVar(&f.bin, "bin", "", "cairn binary the hooks run (default: this executable)")
	fs.BoolVar(&f.noMCP, "no-mcp", false, "leave the MCP server configuration alone")
	fs.BoolVar(&f.asJSON, "json", false, "print the agent, the binary and each file's change as JSON")
	if name == "install" {
		fs.BoolVar(&f.force, "force", false, "install even a binary in a temporary folder ($TMPDIR, /tmp) or Go's build cache, which the hooks need to find later")
		fs.StringVar(&f.extractor, "extractor", "", "what learns from sessions in the background: heuristic (built in, no model) or claude-code (Claude Code's CLI, your subscription); default: ask")
	}
	return f, func(args []string) ([]string, error) { return parseFlags(fs, args) }
}

// parseInstall reads the arguments of install or uninstall: the agent and
// what its installer needs.
func parseInstall(name string, args []string) (agent, harness.InstallOptions, *installFlags, error) {
	f, parse := installFlagSet(name)
	pos, err := parse(args)
	if err != nil {
		return agent{}, harness.InstallOptions{}, nil, err
	}
	var a agent
	ok := len(pos) == 1
	if ok {
		a, ok = agentNamed(pos[0])
	}
	if !ok {
		return agent{}, harness.InstallOptions{}, nil, usageError{"usage: cairn " + name + " " + agentNames()}
	}
	if a.install != nil && (f.settings != "" || f.mcpConfig != "") {
		return a, harness.InstallOptions{}, nil, usageError{"--settings and --mcp-config are Claude Code's files; " + a.title + "'s are found under your home folder"}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return a, harness.InstallOptions{}, nil, err
	}
	if f.settings == "" {
		f.settings = claudecode.SettingsFile(home)
	}
	if f.mcpConfig == "" {
		f.mcpConfig = claudecode.UserConfigFile(home)
	}
	return a, harness.InstallOptions{Home: home, Bin: f.bin, NoMCP: f.noMCP, Env: os.Environ()}, f, nil
}

// runInstall is `cairn install AGENT`: it adds cairn's hooks and MCP
// server to the agent's settings, keeping a backup of each file it
// changes. Run again, it changes nothing.
func runInstall(ctx context.Context, args []string) error {
	a, o, f, err := parseInstall("install", args)
	if err != nil {
		return err
	}
	bin := o.Bin
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return err
		}
		if r, err := filepath.EvalSymlinks(bin); err == nil {
			bin = r
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	if err := harness.CheckBinary(bin, a.name); err != nil && !f.force {
		return err
	}
	o.Bin = bin
	var changes []harness.Change
	if a.install == nil {
		changes, err = installClaude(f, bin)
	} else {
		changes, err = a.install(o)
	}
	changedAny := reportChanges(changes, f.asJSON, report)
	if err != nil {
		return err
	}
	// Claude Code's CLI as the extractor is offered where Claude Code is
	// installed; --extractor chooses it (or the heuristic) from any.
	if a.name == "claude-code" || f.extractor != "" {
		var out io.Writer = os.Stdout
		if f.asJSON {
			out = os.Stderr
		}
		if err := chooseExtractor(f, os.Stdin, out); err != nil {
			return err
		}
	}
	if f.asJSON {
		return printJSON(os.Stdout, map[string]any{"agent": a.name, "bin": bin, "changed": changedAny, "changes": changes})
	}
	if !changedAny {
		fmt.Printf("\ncairn is already installed in %s (running %s); nothing changed.\n", a.title, bin)
		return nil
	}
	what := "hooks and MCP server"
	if f.noMCP {
		what = "hooks"
	}
	if a.name == opencode.Name {
		what = strings.Replace(what, "hooks", "plugin", 1)
	}
	fmt.Printf(`
Installed: %s's %s run %s.
Next:
  1. %s
  2. Use it as usual. Nothing else needs to run: when a hook finds no cairn running, it answers
     from the database and starts cairn serve --idle-exit in the background for the next ones.
  3. Check it works: ask it something, then cairn list shows the newest memories and
     cairn recall WORDS searches them (or open cairn, the terminal UI).
Undo: cairn uninstall %s removes exactly these entries (backups sit beside the files).
`, a.title, what, bin, a.restart, a.name)
	return nil
}

// installClaude is Claude Code's install, with its two files named by
// flags.
func installClaude(f *installFlags, bin string) ([]harness.Change, error) {
	changed, backup, err := claudecode.InstallHooks(f.settings, bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.settings, err)
	}
	changes := []harness.Change{{What: "hooks", File: f.settings, Changed: changed, Backup: backup}}
	if f.noMCP {
		return changes, nil
	}
	changed, backup, err = claudecode.InstallMCP(f.mcpConfig, bin)
	if err != nil {
		return changes, fmt.Errorf("%s: %w", f.mcpConfig, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: f.mcpConfig, Changed: changed, Backup: backup}), nil
}

// reportChanges prints each change with say (unless the command prints
// JSON) and reports whether any file changed.
func reportChanges(changes []harness.Change, asJSON bool, say func(what, file string, changed bool, backup string)) bool {
	changed := false
	for _, c := range changes {
		if !asJSON {
			say(c.What, c.File, c.Changed, c.Backup)
		}
		changed = changed || c.Changed
	}
	return changed
}

// report says what an edit of file did.
func report(what, file string, changed bool, backup string) {
	switch {
	case !changed:
		fmt.Printf("%s: %s already up to date\n", what, file)
	case backup != "":
		fmt.Printf("%s: updated %s (backup: %s)\n", what, file, backup)
	default:
		fmt.Printf("%s: wrote %s\n", what, file)
	}
}
