package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/harness/claudecode"
)

// runUninstall is `cairn uninstall AGENT`: it removes exactly what install
// added, taking the same flags.
func runUninstall(ctx context.Context, args []string) error {
	a, o, f, err := parseInstall("uninstall", args)
	if err != nil {
		return err
	}
	var changes []harness.Change
	if a.uninstall == nil {
		changes, err = uninstallClaude(f)
	} else {
		changes, err = a.uninstall(o)
	}
	changedAny := reportChanges(changes, f.asJSON, reportRemoval)
	if err != nil {
		return err
	}
	if f.asJSON {
		return printJSON(os.Stdout, map[string]any{"agent": a.name, "changed": changedAny, "changes": changes})
	}
	if changedAny {
		fmt.Printf("\nRemoved. Restart %s for it to take effect; your memories stay in cairn's database.\n", a.title)
	} else {
		fmt.Printf("\ncairn was not installed in %s; nothing changed.\n", a.title)
	}
	return nil
}

// uninstallClaude is Claude Code's uninstall, with its two files named by
// flags.
func uninstallClaude(f *installFlags) ([]harness.Change, error) {
	changed, backup, err := claudecode.UninstallHooks(f.settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.settings, err)
	}
	changes := []harness.Change{{What: "hooks", File: f.settings, Changed: changed, Backup: backup}}
	if f.noMCP {
		return changes, nil
	}
	changed, backup, err = claudecode.UninstallMCP(f.mcpConfig)
	if err != nil {
		return changes, fmt.Errorf("%s: %w", f.mcpConfig, err)
	}
	return append(changes, harness.Change{What: "MCP server", File: f.mcpConfig, Changed: changed, Backup: backup}), nil
}

// reportRemoval says what an uninstall did to file.
func reportRemoval(what, file string, changed bool, backup string) {
	switch {
	case !changed:
		fmt.Printf("%s: nothing of cairn's in %s\n", what, file)
	case backup == "":
		fmt.Printf("%s: removed %s\n", what, file)
	default:
		fmt.Printf("%s: removed from %s (backup: %s)\n", what, file, backup)
	}
}
