package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// runShow is `cairn show ID`: one memory with every field.
func runShow(ctx context.Context, args []string) error {
	c := newIDCommand("show", "print the memory as JSON", "usage: cairn show ID (the full id or the short id a listing shows)")
	be, id, err := c.open(ctx, args, nil)
	if err != nil {
		return err
	}
	defer be.Close()
	m, err := be.Get(ctx, id, true)
	if err != nil {
		return err
	}
	if *c.asJSON {
		return printJSON(os.Stdout, m)
	}
	printMemory(m)
	return nil
}

// printMemory writes every field a user reads of m, then its content.
func printMemory(m *core.Memory) {
	row := func(k, v string) {
		if v != "" {
			fmt.Printf("%-11s %s\n", k+":", text.DisplayLine(v)) // shown, never obeyed
		}
	}
	row("id", m.ID+" ("+shortID(m.ID)+")")
	row("type", m.Type)
	row("importance", fmt.Sprintf("%.2g", m.Importance))
	if m.Pinned {
		row("pinned", "yes")
	}
	if len(m.Tags) > 0 {
		row("tags", strings.Join(m.Tags, ","))
	}
	row("project", m.Project)
	row("who", m.Who)
	row("source", strings.TrimSpace(m.SourceType+" "+m.SourceID))
	row("version", fmt.Sprint(m.Version))
	row("created", localTime(m.CreatedAt))
	if m.UpdatedAt != m.CreatedAt {
		row("updated", localTime(m.UpdatedAt)+" by "+m.UpdatedBy)
	}
	if m.IsDeleted {
		row("deleted", localTime(m.DeletedAt)+" (cairn recover "+shortID(m.ID)+" brings it back)")
	}
	fmt.Println()
	fmt.Println(text.Display(m.Content))
}

// localTime renders a stored timestamp in local time to the minute.
func localTime(ts string) string {
	if t, err := storage.ParseTime(ts); err == nil {
		return t.Local().Format("2006-01-02 15:04")
	}
	return ts
}

// shortIDLen is how many characters of an id the listings show.
const shortIDLen = 8

// shortID is the id as listings show it: its last characters. Ids are
// time-ordered UUIDs, so their heads are shared by memories written close
// together while their tails are random.
func shortID(id string) string {
	if len(id) > shortIDLen {
		return id[len(id)-shortIDLen:]
	}
	return id
}

// minShortID is the shortest id a command accepts.
const minShortID = 4

// fullIDLen is the length of a full id (a UUID).
const fullIDLen = 36

// resolveID turns what the user typed into a memory id: a full id as is,
// or a short one (the end of an id, as listings show it, or its start)
// when exactly one memory, deleted ones included, matches. project, when
// set, is searched first.
func resolveID(ctx context.Context, be client.Client, arg, project string) (string, error) {
	ids, err := resolveIDs(ctx, be, []string{arg}, project)
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// resolveIDs resolves every arg (see resolveID) with one pass over the
// memories, in the order given.
func resolveIDs(ctx context.Context, be client.Client, args []string, project string) ([]string, error) {
	out := make([]string, len(args))
	var short []int
	for i, a := range args {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case len(a) == fullIDLen:
			out[i] = a
		case len(a) < minShortID:
			return nil, usageError{fmt.Sprintf("id %q is too short: give at least %d characters of it", args[i], minShortID)}
		default:
			out[i] = a
			short = append(short, i)
		}
	}
	if len(short) == 0 {
		return out, nil
	}
	scopes := []string{""}
	if project != "" {
		scopes = []string{project, ""}
	}
	left := short
	for _, scope := range scopes {
		matches, err := matchShortIDs(ctx, be, out, left, scope)
		if err != nil {
			return nil, err
		}
		var next []int
		for _, i := range left {
			switch m := matches[i]; len(m) {
			case 0:
				next = append(next, i)
			case 1:
				out[i] = m[0]
			default:
				if len(m) > 5 {
					m = append(m[:5:5], "…")
				}
				return nil, usageError{fmt.Sprintf("id %q is ambiguous: it matches %s; give more of it", args[i], strings.Join(m, ", "))}
			}
		}
		left = next
		if len(left) == 0 {
			return out, nil
		}
	}
	return nil, &core.Error{Code: core.CodeNotFound, Message: fmt.Sprintf("no memory has the id %q", args[left[0]])}
}

// matchShortIDs reads the ids of project's memories (every project when
// empty), deleted ones included, as one export stream, and returns for
// each index in want the ids that end or start with want[i].
func matchShortIDs(ctx context.Context, be client.Client, want []string, idx []int, project string) (map[int][]string, error) {
	matches := map[int][]string{}
	f := core.MemoryFilter{Project: project, IncludeDeleted: true}
	err := be.Export(ctx, f, func(line json.RawMessage) error {
		var m struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return err
		}
		for _, i := range idx {
			if strings.HasSuffix(m.ID, want[i]) || strings.HasPrefix(m.ID, want[i]) {
				if !slices.Contains(matches[i], m.ID) {
					matches[i] = append(matches[i], m.ID)
				}
			}
		}
		return nil
	})
	return matches, err
}

// oneLine renders content on one line of at most max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
