package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
	"github.com/charmbracelet/x/term"
)

// runForget is `cairn forget ID... | --query Q`: it soft-deletes memories
// (cairn recover brings them back within memory.recover_window) through
// the API's batch forget: a preview of the selection first, shown to the
// user, then its execution with the preview's confirm token, so what is
// deleted is exactly what was shown.
func runForget(ctx context.Context, args []string) error {
	fs, common := newFlagSet("forget", "forget [flags] ID... | forget --query QUERY [flags]")
	query := fs.String("query", "", "forget the memories holding every word of this `text` (keyword search)")
	anyWord := fs.Bool("any", false, "with --query: memories holding any word of it, best matches first (not only those holding every word)")
	project := fs.String("project", "", "only this project's memories: a name, alias or folder (default for --query: the current repository; short ids resolve there first)")
	typ := fs.String("type", "", "with --query: only memories of this `type`")
	tags := fs.String("tags", "", "with --query: only memories with all of these comma-separated `tags`")
	limit := fs.Int("limit", 20, "with --query: forget at most this many")
	force := fs.Bool("force", false, "also forget pinned memories")
	yes := fs.Bool("yes", false, "do not ask; needed when standard input is not a terminal")
	reason := fs.String("reason", "forgotten with cairn forget", "why, recorded in each memory's history")
	asJSON := fs.Bool("json", false, "print the API's answers (the preview, then the result) as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(*query)
	switch {
	case len(pos) == 0 && q == "":
		return usageError{"nothing to forget: cairn forget ID... or cairn forget --query QUERY"}
	case len(pos) > 0 && q != "":
		return usageError{"give ids or --query, not both"}
	case *limit < 1:
		return usageError{"--limit must be at least 1"}
	case strings.TrimSpace(*reason) == "":
		return usageError{"--reason must not be empty"}
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	in := core.BatchForgetInput{Mode: "preview", Reason: *reason, Force: *force}
	if len(pos) > 0 {
		hint, err := cliProjectGiven(ctx, common, *project)
		if err != nil {
			return err
		}
		if in.IDs, err = resolveIDs(ctx, be, pos, hint); err != nil {
			return err
		}
	} else {
		// A query forgets within the current project unless told which.
		in.Query, in.Limit, in.Match = q, *limit, core.MatchAll
		if *anyWord {
			in.Match = core.MatchAny
		}
		if in.Filter.Project, err = cliProject(ctx, common, *project); err != nil {
			return err
		}
		in.Filter.Type = strings.TrimSpace(*typ)
		if *tags != "" {
			in.Filter.Tags = text.SplitTags(*tags)
		}
	}
	preview, err := be.ForgetBatch(ctx, in)
	if err != nil {
		return err
	}
	// With --json, stdout holds one answer, the true one: the execution's
	// when something was forgotten, else the preview (nothing was).
	out := os.Stdout
	if *asJSON {
		out = os.Stderr // stdout holds only JSON
	}
	shown := map[string]bool{}
	for _, c := range preview.Candidates {
		shown[c.ID] = true
	}
	for _, id := range in.IDs {
		if !shown[id] {
			fmt.Fprintf(os.Stderr, "no live memory %s (already forgotten, or no such id)\n", shortID(id))
		}
	}
	if len(preview.Candidates) == 0 {
		fmt.Fprintln(out, "nothing to forget: no live memory matches")
		return printPreviewJSON(*asJSON, preview)
	}
	fmt.Fprintf(out, "%s:\n", plural(len(preview.Candidates), "memory to forget", "memories to forget"))
	pinned := 0
	for _, c := range preview.Candidates {
		mark := ""
		if c.Pinned {
			pinned++
			mark = "★ "
		}
		fmt.Fprintf(out, "  %s  %s%s\n", shortID(c.ID), mark, oneLine(text.Display(c.Content), 100))
	}
	if pinned > 0 && !*force {
		fmt.Fprintf(out, "(%s pinned: kept unless you add --force)\n", plural(pinned, "is", "are"))
	}
	if !*yes {
		if !term.IsTerminal(os.Stdin.Fd()) {
			return usageError{"standard input is not a terminal, so there is no one to ask: add --yes to forget these"}
		}
		if !confirm(os.Stdin, os.Stderr, fmt.Sprintf("Forget %s? [y/N] ", plural(len(preview.Candidates), "memory", "memories"))) {
			fmt.Fprintln(out, "nothing forgotten")
			return printPreviewJSON(*asJSON, preview)
		}
	}
	in.Mode, in.ConfirmToken = "execute", preview.ConfirmToken
	res, err := be.ForgetBatch(ctx, in)
	if err != nil {
		if core.AsError(err).Code == core.CodeConfirmRequired {
			return fmt.Errorf("the selection changed since it was shown (a memory was written or forgotten meanwhile); nothing was forgotten: run the command again")
		}
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, res.Response())
	}
	for _, r := range res.Results {
		switch r.Status {
		case "deleted":
		case core.CodePinned:
			fmt.Printf("kept %s: it is pinned (--force forgets it)\n", shortID(r.ID))
		default:
			fmt.Printf("kept %s: %s\n", shortID(r.ID), text.DisplayLine(r.Error))
		}
	}
	fmt.Printf("forgot %d of %d (cairn recover ID brings one back)\n", res.Deleted, res.Requested)
	return nil
}

// printPreviewJSON prints, with --json, the preview as the answer of a
// forget that forgot nothing.
func printPreviewJSON(asJSON bool, preview *core.BatchForgetResult) error {
	if !asJSON {
		return nil
	}
	return printJSON(os.Stdout, preview.Response())
}

// confirm asks question on w and reads a yes from r.
func confirm(r io.Reader, w io.Writer, question string) bool {
	fmt.Fprint(w, question)
	line, _ := bufio.NewReader(r).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// plural renders n with the singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
