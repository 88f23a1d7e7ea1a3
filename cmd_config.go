package main

import (
	"context"
	"fmt"
	"os"
)

// runConfig is `cairn config`: the effective configuration as TOML, with
// the files it comes from.
func runConfig(ctx context.Context, args []string) error {
	fs, common := newFlagSet("config", "config [flags]")
	if _, err := parseFlags(fs, args); err != nil {
		return err
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
	fmt.Printf("# config file: %s (%s)\n", a.paths.ConfigFile, found)
	fmt.Printf("# database:    %s\n", a.paths.Database)
	fmt.Printf("# log file:    %s\n", a.paths.LogFile)
	fmt.Println("# Every key can also be set as CAIRN_<SECTION>_<KEY> (e.g. CAIRN_AUTH_MODE); flags win over the")
	fmt.Println("# environment, the environment over this file.")
	fmt.Println()
	fmt.Print(a.cfg.TOML())
	return nil
}
