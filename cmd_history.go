package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core/text"
)

// historyLimit is how many events `cairn history` reads (the API's most).
const historyLimit = 1000

// runHistory is `cairn history ID`: every change to one memory, oldest
// first, with who made it and why.
func runHistory(ctx context.Context, args []string) error {
	c := newIDCommand("history", "print the events as JSON", "usage: cairn history ID")
	be, id, err := c.open(ctx, args, nil)
	if err != nil {
		return err
	}
	defer be.Close()
	events, err := be.MemoryHistory(ctx, id, historyLimit)
	if err != nil {
		return err
	}
	if *c.asJSON {
		return printJSON(os.Stdout, events)
	}
	for _, e := range events {
		// Who and why come from callers: shown, never obeyed.
		line := fmt.Sprintf("%s  %-9s by %s", localTime(e.CreatedAt), text.DisplayLine(e.Event), text.DisplayLine(e.ChangedBy))
		if e.ActorType != "" {
			line += " (" + text.DisplayLine(e.ActorType) + ")"
		}
		if e.Reason != "" {
			line += ": " + text.DisplayLine(e.Reason)
		}
		fmt.Println(line)
		if fields, ok := e.Metadata["changedFields"].([]any); ok && len(fields) > 0 {
			var names []string
			for _, f := range fields {
				names = append(names, text.DisplayLine(fmt.Sprint(f)))
			}
			fmt.Println("    changed: " + strings.Join(names, ", "))
		}
		if e.OldContent != nil && e.NewContent != nil && *e.OldContent != *e.NewContent {
			fmt.Println("    - " + oneLine(text.Display(*e.OldContent), 200))
			fmt.Println("    + " + oneLine(text.Display(*e.NewContent), 200))
		}
	}
	return nil
}
