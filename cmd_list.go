package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/text"
)

// listPage is the most memories one API list call returns.
const listPage = 1000

// runList is `cairn list`: memories newest first, one line each with the
// short id the other commands accept.
func runList(ctx context.Context, args []string) error {
	fs, common := newFlagSet("list", "list [flags]")
	project := fs.String("project", "", "only this project's memories: a name, alias or folder (default: the current repository; --all for every project)")
	all := fs.Bool("all", false, "every project's memories (ignores --project)")
	typ := fs.String("type", "", "only memories of this `type` (fact, preference, decision, learning, issue, rule, …)")
	tags := fs.String("tags", "", "only memories with all of these comma-separated `tags`")
	limit := fs.Int("limit", 20, "how many memories at most; 0 for all of them")
	deleted := fs.Bool("deleted", false, "list forgotten memories instead (recover them with cairn recover ID)")
	asJSON := fs.Bool("json", false, "print the memories as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("list takes no arguments (got %q); search with cairn recall QUERY", strings.Join(pos, " "))}
	}
	if *limit < 0 {
		return usageError{"--limit must be 0 (all) or more"}
	}
	f := core.MemoryFilter{Type: strings.TrimSpace(*typ), OnlyDeleted: *deleted}
	if !*all {
		if f.Project, err = cliProject(ctx, common, *project); err != nil {
			return err
		}
	}
	if *tags != "" {
		f.Tags = text.SplitTags(*tags)
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	res, err := listMemories(ctx, be, f, *limit)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, res)
	}
	if len(res.Memories) == 0 {
		msg := "no memories match"
		if f.Project != "" {
			all := f
			all.Project = ""
			// A hint: a cairn from before the count says only "no memories match".
			if counts, err := be.(client.ProjectCounter).ProjectCounts(ctx, all); err == nil {
				msg = elsewhere(counts, f.Project)
			}
		}
		fmt.Fprintln(os.Stderr, msg)
		return nil
	}
	for _, m := range res.Memories {
		fmt.Println(formatMemoryLine(m))
	}
	if res.HasMore {
		fmt.Fprintf(os.Stderr, "(%d of %d shown; --limit N or --limit 0 for more)\n", len(res.Memories), res.Total)
	}
	return nil
}

// elsewhere says where the memories are when project has none of those
// asked for: "no memories match in project X; 12 in no project, 40 in 3
// other projects: cairn list --all".
func elsewhere(counts map[string]int, project string) string {
	msg := "no memories match in project " + text.DisplayLine(project)
	others, n := 0, 0
	for p, c := range counts {
		if p != "" && p != project {
			others, n = others+1, n+c
		}
	}
	var parts []string
	if counts[""] > 0 {
		parts = append(parts, fmt.Sprintf("%d in no project", counts[""]))
	}
	switch {
	case others == 1:
		parts = append(parts, fmt.Sprintf("%d in 1 other project", n))
	case others > 1:
		parts = append(parts, fmt.Sprintf("%d in %d other projects", n, others))
	}
	if len(parts) == 0 {
		return msg + ", nor anywhere else"
	}
	return msg + "; " + strings.Join(parts, ", ") + ": cairn list --all"
}

// listMemories reads up to limit memories (0: all) matching f, page by page.
func listMemories(ctx context.Context, be client.Client, f core.MemoryFilter, limit int) (*core.ListResult, error) {
	out := &core.ListResult{Memories: []*core.Memory{}, Limit: limit}
	for {
		n := listPage
		if limit > 0 {
			n = min(n, limit-len(out.Memories))
		}
		page, err := be.List(ctx, f, n, len(out.Memories))
		if err != nil {
			return nil, err
		}
		out.Memories = append(out.Memories, page.Memories...)
		out.Total, out.Stats = page.Total, page.Stats
		out.HasMore = page.HasMore
		if !page.HasMore || len(page.Memories) == 0 || (limit > 0 && len(out.Memories) >= limit) {
			break
		}
	}
	out.Count = len(out.Memories)
	return out, nil
}

// formatMemoryLine renders a memory as "shortid date type ★content [tags] · project".
func formatMemoryLine(m *core.Memory) string {
	pin := ""
	if m.Pinned {
		pin = "★ "
	}
	date := localTime(m.CreatedAt)
	if len(date) >= 10 {
		date = date[:10]
	}
	line := fmt.Sprintf("%s  %s  %-10s %s%s", shortID(m.ID), date, text.DisplayLine(m.Type), pin, oneLine(text.Display(m.Content), 120))
	if len(m.Tags) > 0 {
		line += " [" + shownTags(m.Tags) + "]"
	}
	if m.Project != "" {
		line += " · " + text.DisplayLine(m.Project)
	}
	return line
}
