package main

import (
	"context"
	"flag"

	"github.com/cairnmem/cairn/core/client"
)

// idCommand is the preamble of the commands that act on one memory (show,
// history, recover): --project and --json, exactly one ID, the client,
// and the ID resolved (a short id among --project's memories first).
type idCommand struct {
	fs      *flag.FlagSet
	common  *commonFlags
	project *string
	asJSON  *bool
	usage   string // the usage error for a wrong number of arguments
}

func newIDCommand(name, jsonHelp, usage string) *idCommand {
	fs, common := newFlagSet(name, name+" [flags] ID")
	return &idCommand{fs: fs, common: common, usage: usage,
		project: fs.String("project", "", "resolve a short id among this project's memories first"),
		asJSON:  fs.Bool("json", false, jsonHelp)}
}

// open parses args, runs check (flag checks of the command's own, before
// anything opens), opens the client and resolves the ID. The caller
// closes the client.
func (c *idCommand) open(ctx context.Context, args []string, check func() error) (client.Client, string, error) {
	pos, err := parseFlags(c.fs, args)
	if err != nil {
		return nil, "", err
	}
	if len(pos) != 1 {
		return nil, "", usageError{c.usage}
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, "", err
		}
	}
	be, err := connect(ctx, c.common)
	if err != nil {
		return nil, "", err
	}
	hint, err := cliProjectGiven(ctx, c.common, *c.project)
	if err == nil {
		var id string
		if id, err = resolveID(ctx, be, pos[0], hint); err == nil {
			return be, id, nil
		}
	}
	be.Close()
	return nil, "", err
}
