package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/BurntSushi/toml"
)

// runConfig is `cairn config`: the effective configuration as TOML, with
// the files it comes from.
func runConfig(ctx context.Context, args []string) error {
	fs, common := newFlagSet("config", "config [--json] [flags]")
	asJSON := fs.Bool("json", false, "print the files and the effective configuration as one JSON object")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("config takes no arguments, got %q: cairn config [--json]", pos[0])}
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	found := "not found, defaults apply"
	if _, err := os.Stat(a.paths.ConfigFile); err == nil {
		found = "found"
	}
	if *asJSON {
		return printConfigJSON(a, found == "found")
	}
	fmt.Printf("# config file: %s (%s)\n", a.paths.ConfigFile, found)
	fmt.Printf("# database:    %s\n", a.paths.Database)
	fmt.Printf("# log file:    %s\n", a.paths.LogFile)
	fmt.Println("# Every key can also be set as CAIRN_<SECTION>_<KEY> (e.g. CAIRN_AUTH_MODE); flags win over the")
	fmt.Println("# environment, the environment over this file.")
	fmt.Println()
	fmt.Print(a.cfg.TOML())
	return nil
}

// printConfigJSON prints the effective configuration with the same keys
// as the TOML (read back from it, so the two never differ) and the files.
func printConfigJSON(a *app, found bool) error {
	var cfg map[string]any
	if _, err := toml.Decode(a.cfg.TOML(), &cfg); err != nil {
		return fmt.Errorf("read back the effective configuration: %w", err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"configFile":  a.paths.ConfigFile,
		"configFound": found,
		"database":    a.paths.Database,
		"logFile":     a.paths.LogFile,
		"config":      cfg,
	})
}
