package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/text"
	"github.com/charmbracelet/x/term"
)

// runEdit is `cairn edit ID`: it changes a memory's content (from --content,
// or in $EDITOR when no field flag is given), tags, type, importance or pin,
// guarded by the version it read, so an edit made meanwhile elsewhere is
// refused instead of overwritten.
func runEdit(ctx context.Context, args []string) error {
	fs, common := newFlagSet("edit", "edit [flags] ID   (no field flag: edit the content in $EDITOR)")
	project := fs.String("project", "", "resolve a short id among this project's memories first")
	var content, tags, typ optString
	var importance optFloat
	var pinned optBool
	fs.Var(&content, "content", "new content `TEXT`")
	fs.Var(&tags, "tags", "new comma-separated `tags` (replace the old ones; '' removes them)")
	fs.Var(&typ, "type", "new memory `type`: one of "+strings.Join(core.KnownTypes, ", ")+" or memory.extra_types")
	fs.Var(&importance, "importance", "new importance, a `number` from 0 to 1 (default: unchanged)")
	fs.Var(&pinned, "pinned", "pin the memory (--pinned=false unpins it)")
	reason := fs.String("reason", "edited with cairn edit", "why, recorded in the memory's history")
	asJSON := fs.Bool("json", false, "print the API's answer as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: cairn edit [flags] ID"}
	}
	if strings.TrimSpace(*reason) == "" {
		return usageError{"--reason must not be empty"}
	}
	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer func() {
		if be != nil {
			be.Close()
		}
	}()
	hint, err := cliProjectGiven(ctx, common, *project)
	if err != nil {
		return err
	}
	id, err := resolveID(ctx, be, pos[0], hint)
	if err != nil {
		return err
	}
	m, err := be.Get(ctx, id, false)
	if errors.Is(err, core.ErrNotFound) {
		if d, derr := be.Get(ctx, id, true); derr == nil && d.IsDeleted {
			return fmt.Errorf("memory %s is forgotten; cairn recover %s first", shortID(id), shortID(id))
		}
	}
	if err != nil {
		return err
	}
	version := m.Version
	p := core.Patch{ID: id, Reason: *reason, IfVersion: &version}
	if content.set {
		p.Content = &content.v
	}
	if tags.set {
		t := text.SplitTags(tags.v)
		if t == nil {
			t = []string{}
		}
		p.Tags = &t
	}
	if typ.set {
		if err := checkCLIType(common, typ.v); err != nil {
			return err
		}
		p.Type = &typ.v
	}
	if importance.set {
		p.Importance = &importance.v
	}
	if pinned.set {
		p.Pinned = &pinned.v
	}
	if !content.set && !tags.set && !typ.set && !importance.set && !pinned.set {
		// The database is let go while the editor runs (it may run for
		// minutes; hooks and other commands must not wait for it), and the
		// change is applied to the version read, or refused.
		be.Close()
		be = nil
		edited, err := editInEditor(m.Content)
		if err != nil {
			return err
		}
		if edited == m.Content {
			fmt.Println("no changes")
			return nil
		}
		p.Content = &edited
		if be, err = connect(ctx, common); err != nil {
			return err
		}
	}
	res, err := be.Modify(ctx, p)
	if *asJSON && res != nil && res.Status != "" {
		if perr := printJSON(os.Stdout, res); perr != nil {
			return perr
		}
	}
	if err != nil {
		return mutationError("edit", id, res, err)
	}
	if *asJSON {
		return nil
	}
	if res.Status == "no_changes" {
		fmt.Printf("no changes to %s (version %d)\n", shortID(id), res.CurrentVersion)
		return nil
	}
	fmt.Printf("updated %s (version %d → %d)\n", shortID(id), res.CurrentVersion, res.NewVersion)
	return nil
}

// editInEditor opens content in $VISUAL or $EDITOR (vi when neither is
// set) on the terminal and returns what was saved, without the final
// newline editors add.
func editInEditor(content string) (string, error) {
	if !term.IsTerminal(os.Stdin.Fd()) {
		return "", usageError{"no terminal to run an editor in: give the change as flags (--content TEXT, --tags, --type, --importance, --pinned)"}
	}
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "cairn-edit-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "memory.md")
	if err := os.WriteFile(file, []byte(content+"\n"), 0o600); err != nil {
		return "", err
	}
	// The editor variable may hold arguments ("code --wait"): the shell
	// splits it, the file is passed as its own argument.
	cmd := exec.Command("/bin/sh", "-c", editor+` "$1"`, "sh", file)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("editor %q: %w (the memory is unchanged)", editor, err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	out := strings.TrimSuffix(string(b), "\n")
	if strings.TrimSpace(out) == "" {
		return "", errors.New("the edited content is empty; the memory is unchanged (cairn forget removes a memory)")
	}
	return out, nil
}
