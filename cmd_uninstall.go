package main

import (
	"context"
	"fmt"

	"github.com/cairnmem/cairn/core/harness/claudecode"
)

// runUninstall is `cairn uninstall claude-code`: it removes exactly what
// install added, taking the same flags.
func runUninstall(ctx context.Context, args []string) error {
	f, parse := installFlagSet("uninstall")
	pos, err := parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "claude-code" {
		return usageError{"usage: cairn uninstall claude-code"}
	}
	changed, backup, err := claudecode.UninstallHooks(f.settings)
	if err != nil {
		return fmt.Errorf("%s: %w", f.settings, err)
	}
	reportRemoval("hooks", f.settings, changed, backup)
	changedAny := changed
	if !f.noMCP {
		changed, backup, err = claudecode.UninstallMCP(f.mcpConfig)
		if err != nil {
			return fmt.Errorf("%s: %w", f.mcpConfig, err)
		}
		reportRemoval("MCP server", f.mcpConfig, changed, backup)
		changedAny = changedAny || changed
	}
	if changedAny {
		fmt.Println("\nRemoved. Restart Claude Code for it to take effect; your memories stay in cairn's database.")
	} else {
		fmt.Println("\ncairn was not installed in Claude Code; nothing changed.")
	}
	return nil
}

// reportRemoval says what an uninstall did to file.
func reportRemoval(what, file string, changed bool, backup string) {
	switch {
	case !changed:
		fmt.Printf("%s: nothing of cairn's in %s\n", what, file)
	default:
		fmt.Printf("%s: removed from %s (backup: %s)\n", what, file, backup)
	}
}
