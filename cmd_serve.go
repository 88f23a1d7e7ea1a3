package main

import (
	"context"
)

// runServe is `cairn serve`: the store, the workers and the API without a
// terminal UI, logging to the log file and stderr.
func runServe(ctx context.Context, args []string) error {
	fs, common := newFlagSet("serve", "serve [flags]")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.openLog(true); err != nil {
		return err
	}
	return a.serve(ctx, nil)
}
