package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
)

// runRemember is `cairn remember`: it stores TEXT through the running
// cairn's API, or the store itself when none runs.
func runRemember(ctx context.Context, args []string) error {
	fs, common := newFlagSet("remember", "remember [flags] TEXT")
	tags := fs.String("tags", "", "comma-separated tags")
	typ := fs.String("type", "", "memory `type`, one of "+strings.Join(core.KnownTypes, ", ")+" or memory.extra_types (default: inferred from the text)")
	var importance optFloat
	fs.Var(&importance, "importance", "importance, a `number` from 0 to 1 (memory.default_importance; 1 with --critical)")
	critical := fs.Bool("critical", false, "pin the memory with importance 1.0")
	project := fs.String("project", "", "project the memory belongs to: a name, alias or folder (default: the current repository, the folder itself outside one)")
	who := fs.String("who", "", "who the memory is from (default cli)")
	key := fs.String("key", "", "a key for a fact with one current value (timezone, staging.db.port): a new value for the key in the project supersedes the old one")
	scope := fs.String("scope", "", "project (default), user (follows you into every project) or agent (only the agent named by --who)")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	content := strings.Join(pos, " ")
	if strings.TrimSpace(content) == "" {
		return usageError{"nothing to remember: cairn remember [flags] TEXT"}
	}
	if err := checkCLIType(common, *typ); err != nil {
		return err
	}
	in := core.RememberInput{Content: content, Type: *typ, Key: *key, Scope: *scope, Who: "cli"}
	if *critical {
		in.Content = "critical: " + content
	}
	if *tags != "" {
		in.Tags = text.SplitTags(*tags)
	}
	if importance.set {
		in.Importance = &importance.v
	}
	p, err := cliProject(ctx, common, *project)
	if err != nil {
		return err
	}
	in.Project = p
	if *who != "" {
		in.Who = *who
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()
	out, err := be.Remember(ctx, in)
	if err != nil {
		return err
	}
	if *asJSON {
		fmt.Println(string(out.Raw))
		return nil
	}
	switch {
	case out.Chunked:
		fmt.Printf("remembered in %d chunks (group %s)\n", len(out.IDs), out.GroupID)
	case out.Deduped:
		fmt.Printf("already remembered as %s (reinforced)\n", out.ID)
	default:
		details := []string{text.DisplayLine(out.Type), fmt.Sprintf("importance %.2g", out.Importance)}
		if out.Pinned {
			details = append(details, "pinned")
		}
		if len(out.Tags) > 0 {
			details = append(details, "tags "+shownTags(out.Tags))
		}
		fmt.Printf("remembered %s (%s)\n", out.ID, strings.Join(details, ", "))
	}
	for _, id := range out.Superseded {
		fmt.Printf("superseded %s (cairn recover %s brings it back)\n", id, id)
	}
	return nil
}
