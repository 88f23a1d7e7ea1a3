package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/completion"
	"github.com/cairnmem/cairn/themes"
)

// runCompletion is `cairn completion bash|zsh|fish`: a completion script
// for the shell, written from the commands' own flag sets, so it never
// lists a flag a command does not take.
func runCompletion(ctx context.Context, args []string) error {
	fs, _ := newFlagSet("completion", "completion bash|zsh|fish\n\n"+
		"  bash: source <(cairn completion bash)      (or save it in /etc/bash_completion.d/cairn)\n"+
		"  zsh:  cairn completion zsh > \"${fpath[1]}/_cairn\"   (then start a new shell)\n"+
		"  fish: cairn completion fish > ~/.config/fish/completions/cairn.fish")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: cairn completion bash|zsh|fish"}
	}
	spec, err := completionSpec(ctx)
	if err != nil {
		return err
	}
	switch pos[0] {
	case "bash":
		completion.WriteBash(os.Stdout, spec)
	case "zsh":
		completion.WriteZsh(os.Stdout, spec)
	case "fish":
		completion.WriteFish(os.Stdout, spec)
	default:
		return usageError{fmt.Sprintf("no completion for shell %q: cairn completion bash|zsh|fish", pos[0])}
	}
	return nil
}

// fileFlags take a path.
var fileFlags = []string{"home", "config", "db", "settings", "mcp-config", "bin", "o", "data", "binary"}

// commandArgs are the fixed words a command takes as arguments.
var commandArgs = map[string][]string{
	"install":    {"claude-code"},
	"uninstall":  {"claude-code"},
	"completion": {"bash", "zsh", "fish"},
	"bench":      {"locomo", "inject", "remember", "floor"},
	"token":      {"create"},
}

// completionSpec asks each command for its flag set (flagSink makes -h
// hand it over instead of printing help).
func completionSpec(ctx context.Context) (*completion.Spec, error) {
	var got *flag.FlagSet
	flagSink = func(fs *flag.FlagSet) { got = fs }
	defer func() { flagSink = nil }()
	flagsOf := func(fn func(context.Context, []string) error) []completion.Flag {
		got = nil
		_ = fn(ctx, []string{"-h"})
		if got == nil {
			return nil
		}
		var out []completion.Flag
		got.VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			out = append(out, completion.Flag{Name: f.Name, Usage: firstLine(f.Usage), IsBool: ok && b.IsBoolFlag()})
		})
		return out
	}
	spec := &completion.Spec{FileFlags: fileFlags, Args: commandArgs, Values: map[string][]string{
		"type":  core.KnownTypes, // what --type accepts
		"theme": themes.BuiltinNames(),
	}}
	spec.Top = flagsOf(runDefault)
	for _, c := range commands() {
		cc := completion.Command{Name: c.name, Summary: c.summary}
		if c.name != "version" && c.name != "completion" { // they take no flags
			cc.Flags = flagsOf(c.run)
		}
		spec.Commands = append(spec.Commands, cc)
	}
	spec.Commands = append(spec.Commands, completion.Command{Name: "help", Summary: "print the help of cairn or of a command: cairn help COMMAND"})
	return spec, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "`", "")
}
