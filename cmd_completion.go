package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core"
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
		writeBash(os.Stdout, spec)
	case "zsh":
		writeZsh(os.Stdout, spec)
	case "fish":
		writeFish(os.Stdout, spec)
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

// compFlag is one flag as completion offers it.
type compFlag struct {
	name, usage string
	isBool      bool
}

type compCommand struct {
	name, summary string
	flags         []compFlag
}

// compSpec is everything a completion script offers.
type compSpec struct {
	top      []compFlag // cairn with no command
	commands []compCommand
	values   map[string][]string // flag name -> its fixed values
}

// completionSpec asks each command for its flag set (flagSink makes -h
// hand it over instead of printing help).
func completionSpec(ctx context.Context) (*compSpec, error) {
	var got *flag.FlagSet
	flagSink = func(fs *flag.FlagSet) { got = fs }
	defer func() { flagSink = nil }()
	flagsOf := func(fn func(context.Context, []string) error) []compFlag {
		got = nil
		_ = fn(ctx, []string{"-h"})
		if got == nil {
			return nil
		}
		var out []compFlag
		got.VisitAll(func(f *flag.Flag) {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			out = append(out, compFlag{name: f.Name, usage: firstLine(f.Usage), isBool: ok && b.IsBoolFlag()})
		})
		return out
	}
	spec := &compSpec{values: map[string][]string{
		"type":  core.KnownTypes, // what --type accepts
		"theme": themes.BuiltinNames(),
	}}
	spec.top = flagsOf(runDefault)
	for _, c := range commands() {
		cc := compCommand{name: c.name, summary: c.summary}
		if c.name != "version" && c.name != "completion" { // they take no flags
			cc.flags = flagsOf(c.run)
		}
		spec.commands = append(spec.commands, cc)
	}
	spec.commands = append(spec.commands, compCommand{name: "help", summary: "print the help of cairn or of a command: cairn help COMMAND"})
	return spec, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "`", "")
}

func (s *compSpec) names() []string {
	var out []string
	for _, c := range s.commands {
		out = append(out, c.name)
	}
	return out
}

// dash writes a flag as typed: -o, --name.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func dashed(flags []compFlag) string {
	var out []string
	for _, f := range flags {
		out = append(out, dash(f.name))
	}
	return strings.Join(out, " ")
}

func writeBash(w io.Writer, s *compSpec) {
	fmt.Fprintf(w, `# bash completion for cairn: source <(cairn completion bash)
_cairn() {
    local cur prev cmd="" i words
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    for ((i = 1; i < COMP_CWORD; i++)); do
        case " %s " in
        *" ${COMP_WORDS[i]} "*) cmd="${COMP_WORDS[i]}"; break ;;
        esac
    done
    case "$prev" in
`, strings.Join(s.names(), " "))
	for _, name := range sortedKeys(s.values) {
		fmt.Fprintf(w, "    --%s | -%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, name, strings.Join(s.values[name], " "))
	}
	var files []string
	for _, f := range fileFlags {
		files = append(files, "--"+f, "-"+f)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return f == "--o" })
	fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n    esac\n    case \"$cmd\" in\n", strings.Join(files, " | "))
	fmt.Fprintf(w, "    \"\") if [[ $cur == -* ]]; then words=%q; else words=%q; fi ;;\n", dashed(s.top), strings.Join(s.names(), " "))
	fmt.Fprintf(w, "    help) words=%q ;;\n", strings.Join(s.names(), " "))
	for _, c := range s.commands {
		if c.name == "help" {
			continue
		}
		args := strings.Join(commandArgs[c.name], " ")
		fmt.Fprintf(w, "    %s) if [[ $cur == -* ]]; then words=%q; else words=%q; fi ;;\n", c.name, dashed(c.flags), args)
	}
	fmt.Fprint(w, `    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cairn cairn
`)
}

// zshQuote quotes s for a zsh single-quoted word.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZsh(w io.Writer, s *compSpec) {
	fmt.Fprint(w, "#compdef cairn\n# zsh completion for cairn: cairn completion zsh > \"${fpath[1]}/_cairn\"\n_cairn() {\n    local -a cmds\n    cmds=(\n")
	for _, c := range s.commands {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.name+":"+strings.ReplaceAll(c.summary, ":", `\:`)))
	}
	fmt.Fprint(w, "    )\n    local cmd=\"\" i\n    for ((i = 2; i < CURRENT; i++)); do\n")
	fmt.Fprint(w, "        if (( ${cmds[(I)${words[i]}:*]} )); then cmd=${words[i]}; break; fi\n    done\n")
	fmt.Fprint(w, "    case ${words[CURRENT-1]} in\n")
	for _, name := range sortedKeys(s.values) {
		fmt.Fprintf(w, "    --%s|-%s) compadd -- %s; return ;;\n", name, name, strings.Join(s.values[name], " "))
	}
	var files []string
	for _, f := range fileFlags {
		files = append(files, "--"+f, "-"+f)
	}
	fmt.Fprintf(w, "    %s) _files; return ;;\n    esac\n", strings.Join(files, "|"))
	zflags := func(flags []compFlag) string {
		var out []string
		for _, f := range flags {
			out = append(out, zshQuote(dash(f.name)+":"+strings.ReplaceAll(f.usage, ":", `\:`)))
		}
		return strings.Join(out, " ")
	}
	fmt.Fprint(w, "    local -a opts args\n    case $cmd in\n")
	fmt.Fprintf(w, "    \"\") opts=(%s); args=() ;;\n", zflags(s.top))
	fmt.Fprint(w, "    help) opts=(); args=(${cmds%%:*}) ;;\n")
	for _, c := range s.commands {
		if c.name == "help" {
			continue
		}
		fmt.Fprintf(w, "    %s) opts=(%s); args=(%s) ;;\n", c.name, zflags(c.flags), strings.Join(commandArgs[c.name], " "))
	}
	fmt.Fprint(w, `    esac
    if [[ ${words[CURRENT]} == -* ]]; then
        _describe -t options 'flag' opts
    elif [[ -z $cmd ]]; then
        _describe -t commands 'command' cmds
    elif (( ${#args} )); then
        compadd -- $args
    else
        _files
    fi
}
compdef _cairn cairn
`)
}

// fishQuote quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer, s *compSpec) {
	fmt.Fprint(w, "# fish completion for cairn: cairn completion fish > ~/.config/fish/completions/cairn.fish\ncomplete -c cairn -f\n")
	for _, c := range s.commands {
		fmt.Fprintf(w, "complete -c cairn -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	fmt.Fprintf(w, "complete -c cairn -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(s.names(), " ")))
	flagLine := func(cond string, f compFlag) {
		opt := "-l " + f.name
		if len(f.name) == 1 {
			opt = "-s " + f.name
		}
		line := fmt.Sprintf("complete -c cairn -n %s %s -d %s", fishQuote(cond), opt, fishQuote(f.usage))
		switch {
		case f.isBool:
		case s.values[f.name] != nil:
			line += " -x -a " + fishQuote(strings.Join(s.values[f.name], " "))
		case slices.Contains(fileFlags, f.name):
			line += " -r -F"
		default:
			line += " -x"
		}
		fmt.Fprintln(w, line)
	}
	for _, f := range s.top {
		flagLine("__fish_use_subcommand", f)
	}
	for _, c := range s.commands {
		cond := "__fish_seen_subcommand_from " + c.name
		for _, f := range c.flags {
			flagLine(cond, f)
		}
		if a := commandArgs[c.name]; a != nil {
			fmt.Fprintf(w, "complete -c cairn -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(a, " ")))
		}
	}
}

func sortedKeys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
