package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// installFlags are the flags of install and uninstall: which files to
// edit and the binary the hooks run.
type installFlags struct {
	settings, mcpConfig, bin string
	noMCP                    bool
}

// installFlagSet registers installFlags for the command name and returns
// them with the parser of its arguments.
func installFlagSet(name string) (*installFlags, func([]string) ([]string, error)) {
	fs, _ := newFlagSet(name, name+" [flags] claude-code")
	f := &installFlags{}
	home, _ := os.UserHomeDir()
	fs.StringVar(&f.settings, "settings", filepath.Join(home, ".claude", "settings.json"), "Claude Code settings file that gets the hooks")
	fs.StringVar(&f.mcpConfig, "mcp-config", filepath.Join(home, ".claude.json"), "Claude Code user config that gets the MCP server (mcpServers)")
	fs.StringVar(&f.bin, "bin", "", "cairn binary the hooks run (default: this executable)")
	fs.BoolVar(&f.noMCP, "no-mcp", false, "leave the MCP server configuration alone")
	return f, func(args []string) ([]string, error) { return parseFlags(fs, args) }
}

// runInstall is `cairn install claude-code`: it adds cairn's hooks to
// Claude Code's settings and its MCP server to the user config, keeping a
// backup of each file it changes.
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
	changed, backup, err := editJSONFile(f.settings, func(top *jsonObject) error { return addClaudeHooks(top, bin) })
	if err != nil {
		return fmt.Errorf("%s: %w", f.settings, err)
	}
	report("hooks", f.settings, changed, backup)
	if !f.noMCP {
		changed, backup, err = editJSONFile(f.mcpConfig, func(top *jsonObject) error { return addMCPServer(top, bin) })
		if err != nil {
			return fmt.Errorf("%s: %w", f.mcpConfig, err)
		}
		report("MCP server", f.mcpConfig, changed, backup)
	}
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
