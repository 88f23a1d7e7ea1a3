package main

import (
	"context"
	"fmt"
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
	changed, backup, err := editJSONFile(f.settings, func(top *jsonObject) error { removeClaudeHooks(top); return nil })
	if err != nil {
		return fmt.Errorf("%s: %w", f.settings, err)
	}
	report("hooks", f.settings, changed, backup)
	if !f.noMCP {
		changed, backup, err = editJSONFile(f.mcpConfig, func(top *jsonObject) error { removeMCPServer(top); return nil })
		if err != nil {
			return fmt.Errorf("%s: %w", f.mcpConfig, err)
		}
		report("MCP server", f.mcpConfig, changed, backup)
	}
	return nil
}
