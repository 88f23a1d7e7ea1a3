package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// runRecall is `cairn recall`: it searches memories, through the running
// cairn's API or the store itself, and prints one line per hit.
func runRecall(ctx context.Context, args []string) error {
	fs, common := newFlagSet("recall", "recall [flags] QUERY")
	limit := fs.Int("limit", 10, "how many results")
	typ := fs.String("type", "", "only this memory type")
	tags := fs.String("tags", "", "only memories with all of these comma-separated tags")
	project := fs.String("project", "", "only this project: a name, alias or folder (default: every project)")
	who := fs.String("who", "", "only memories from this source")
	scope := fs.String("scope", "", "only this scope: project, user or agent")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usageError{"nothing to search for: cairn recall [flags] QUERY"}
	}
	in := core.RecallInput{Query: query, Limit: *limit, Filter: core.MemoryFilter{Type: *typ, Who: *who,
		Scope: strings.ToLower(strings.TrimSpace(*scope))}}
	if *tags != "" {
		in.Filter.Tags = text.SplitTags(*tags)
	}
	// Recall searches every project unless --project names one.
	proj, err := cliProjectGiven(ctx, common, *project)
	if err != nil {
		return err
	}
	in.Filter.Project = proj
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	// The API's check of a recall's limit (0 would be the default there).
	if *limit < 1 || *limit > core.MaxRecallLimit {
		return core.Invalid("limit", "limit must be an integer from 1 to %d", core.MaxRecallLimit)
	}
	res, err := be.Recall(ctx, in)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, res)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(os.Stderr, nothingAbout(res.BelowFloor))
		return nil
	}
	for _, r := range res.Results {
		fmt.Println(formatHit(r))
	}
	return nil
}

// formatHit renders one result as "shortid date [score] ★content [tags] ·
// type · who"; the short id is what show, edit and forget accept.
func formatHit(r *core.RecallHit) string {
	date := r.CreatedAt
	if t, err := storage.ParseTime(r.CreatedAt); err == nil {
		date = t.Local().Format("2006-01-02")
	}
	pin := ""
	if r.Pinned {
		pin = "★ "
	}
	// Stored text is shown, never obeyed: no control character or
	// escape sequence reaches the terminal (text.Display, DisplayLine).
	line := fmt.Sprintf("%s  %s [%3.0f%%] %s%s", shortID(r.ID), date, r.Score*100, pin, text.Display(r.Content))
	if len(r.Tags) > 0 {
		line += " [" + shownTags(r.Tags) + "]"
	}
	line += " · " + text.DisplayLine(r.Type)
	if r.Who != "" {
		line += " · " + text.DisplayLine(r.Who)
	}
	return line
}

// shownTags renders tags for a terminal: each through text.DisplayLine.
func shownTags(tags []string) string {
	shown := make([]string, len(tags))
	for i, t := range tags {
		shown[i] = text.DisplayLine(t)
	}
	return strings.Join(shown, ",")
}

// nothingAbout says why a recall has no result: no memory shares a word
// with the query, and none is closer in meaning than unrelated text.
func nothingAbout(belowFloor int) string {
	if belowFloor > 0 {
		return fmt.Sprintf("no memory is about this: none shares a word with it, and the %d nearest in meaning are no closer than unrelated text", belowFloor)
	}
	return "no memory is about this: none shares a word with it"
}
