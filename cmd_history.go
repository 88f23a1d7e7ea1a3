package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// historyLimit is how many events `cairn history` reads (the API's most).
const historyLimit = 1000

// runHistory is `cairn history ID`: every change to one memory, oldest
// first, with who made it and why.
func runHistory(ctx context.Context, args []string) error {
	fs, common := newFlagSet("history", "history [flags] ID")
	project := fs.String("project", "", "resolve a short id among this project's memories first")
	asJSON := fs.Bool("json", false, "print the events as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: cairn history ID"}
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	hint, err := cliProjectGiven(ctx, common, *project)
	if err != nil {
		return err
	}
	id, err := resolveID(ctx, be, pos[0], hint)
	if err != nil {
		return err
	}
	events, err := be.History(ctx, id, historyLimit)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, events)
	}
	for _, e := range events {
		line := fmt.Sprintf("%s  %-9s by %s", localTime(e.CreatedAt), e.Event, e.ChangedBy)
		if e.ActorType != "" {
			line += " (" + e.ActorType + ")"
		}
		if e.Reason != "" {
			line += ": " + e.Reason
		}
		fmt.Println(line)
		if fields, ok := e.Metadata["changedFields"].([]any); ok && len(fields) > 0 {
			var names []string
			for _, f := range fields {
				names = append(names, fmt.Sprint(f))
			}
			fmt.Println("    changed: " + strings.Join(names, ", "))
		}
		if e.OldContent != nil && e.NewContent != nil && *e.OldContent != *e.NewContent {
			fmt.Println("    - " + oneLine(*e.OldContent, 200))
			fmt.Println("    + " + oneLine(*e.NewContent, 200))
		}
	}
	return nil
}
