package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/claudecode"
)

// installFlags are the flags of install and uninstall: which files to
// edit and the binary the hooks run.
type installFlags struct {
	settings, mcpConfig, bin string
	noMCP                    bool
	// extractor is the model choice for learning (install only): "" asks
	// when a person is there to answer.
	extractor string
	common    *commonFlags
}

// installFlagSet registers installFlags for the command name and returns
// them with the parser of its arguments.
func installFlagSet(name string) (*installFlags, func([]string) ([]string, error)) {
	fs, common := newFlagSet(name, name+" [flags] claude-code")
	f := &installFlags{common: common}
	home, _ := os.UserHomeDir()
	fs.StringVar(&f.settings, "settings", claudecode.SettingsFile(home), "Claude Code settings file that gets the hooks")
	fs.StringVar(&f.mcpConfig, "mcp-config", claudecode.UserConfigFile(home), "Claude Code user config that gets the MCP server (mcpServers)")
	fs.StringVar(&f.bin, "bin", "", "cairn binary the hooks run (default: this executable)")
	fs.BoolVar(&f.noMCP, "no-mcp", false, "leave the MCP server configuration alone")
	if name == "install" {
		fs.StringVar(&f.extractor, "extractor", "", "what learns from sessions in the background: heuristic (built in, no model) or claude-code (Claude Code's CLI, your subscription); default: ask")
	}
	return f, func(args []string) ([]string, error) { return parseFlags(fs, args) }
}

// runInstall is `cairn install claude-code`: it adds cairn's hooks to
// Claude Code's settings and its MCP server to the user config, keeping a
// backup of each file it changes. Run again, it changes nothing.
func runInstall(ctx context.Context, args []string) error {
	f, parse := installFlagSet("install")
	pos, err := parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "claude-code" {
		return usageError{"usage: cairn install claude-code (the only supported agent so far)"}
	}
	bin := f.bin
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
	if err := harness.CheckBinary(bin); err != nil {
		return err
	}
	changed, backup, err := claudecode.InstallHooks(f.settings, bin)
	if err != nil {
		return fmt.Errorf("%s: %w", f.settings, err)
	}
	report("hooks", f.settings, changed, backup)
	changedAny := changed
	if !f.noMCP {
		changed, backup, err = claudecode.InstallMCP(f.mcpConfig, bin)
		if err != nil {
			return fmt.Errorf("%s: %w", f.mcpConfig, err)
		}
		report("MCP server", f.mcpConfig, changed, backup)
		changedAny = changedAny || changed
	}
	if err := chooseExtractor(f, os.Stdin, os.Stdout); err != nil {
		return err
	}
	if !changedAny {
		fmt.Printf("\ncairn is already installed in Claude Code (running %s); nothing changed.\n", bin)
		return nil
	}
	what := "hooks and MCP server"
	if f.noMCP {
		what = "hooks"
	}
	fmt.Printf(`
Installed: Claude Code's %s run %s.
Next:
  1. Restart Claude Code (sessions already open keep their old settings).
  2. Start cairn: cairn (the terminal UI) or cairn serve.
  3. Check it works: ask Claude Code something, then cairn recall WORDS
     (or the UI's recall view) shows what it remembered; cairn list shows the newest.
Undo: cairn uninstall claude-code removes exactly these entries (backups sit beside the files).
`, what, bin)
	return nil
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
