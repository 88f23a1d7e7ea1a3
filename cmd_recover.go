package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
)

// runRecover is `cairn recover ID`: it brings back a forgotten memory
// within the recover window (memory.recover_window).
func runRecover(ctx context.Context, args []string) error {
	c := newIDCommand("recover", "print the API's answer as JSON", "usage: cairn recover ID (cairn list --deleted shows forgotten memories)")
	reason := c.fs.String("reason", "recovered with cairn recover", "why, recorded in the memory's history")
	be, id, err := c.open(ctx, args, func() error {
		if strings.TrimSpace(*reason) == "" {
			return usageError{"--reason must not be empty"}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer be.Close()
	res, err := be.Recover(ctx, core.RecoverInput{ID: id, Reason: *reason})
	if *c.asJSON && res != nil {
		if perr := printJSON(os.Stdout, res); perr != nil {
			return perr
		}
	}
	if err != nil {
		return mutationError("recover", id, res, err)
	}
	if !*c.asJSON {
		fmt.Printf("recovered %s (version %d)\n", shortID(id), res.NewVersion)
	}
	return nil
}

// mutationError explains a refused change to memory id.
func mutationError(verb, id string, res *core.MutationResult, err error) error {
	e := core.AsError(err)
	switch e.Code {
	case core.CodeVersionConflict:
		cur := int64(0)
		if res != nil {
			cur = res.CurrentVersion
		}
		if v, ok := e.Extra["currentVersion"].(float64); ok && cur == 0 { // through the API
			cur = int64(v)
		}
		return fmt.Errorf("%s %s: the memory changed since it was read (it is now at version %d); nothing was changed: look again with cairn show %s", verb, shortID(id), cur, shortID(id))
	case core.CodeDuplicate:
		dup := ""
		if d, _ := e.Extra["duplicateMemoryId"].(string); d != "" {
			dup = " (" + shortID(d) + ")"
		}
		return fmt.Errorf("%s %s: %s%s", verb, shortID(id), e.Message, dup)
	}
	return fmt.Errorf("%s %s: %w", verb, shortID(id), err)
}
