package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// runVersionCmd is `cairn version`.
func runVersionCmd(ctx context.Context, args []string) error {
	fs, _ := newFlagSet("version", "version [--json]")
	asJSON := fs.Bool("json", false, "print {\"version\": ...} as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("version takes no arguments, got %q: cairn version [--json]", pos[0])}
	}
	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(map[string]string{"version": cairnVersion()})
	}
	fmt.Printf("cairn %s\n", cairnVersion())
	return nil
}
