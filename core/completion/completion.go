package completion

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Flag is one flag as completion offers it.
type Flag struct {
	Name, Usage string
	IsBool      bool
}

// Command is one command with its flags.
type Command struct {
	Name, Summary string
	Flags         []Flag
}

// Spec is everything a completion script offers.
type Spec struct {
	Top      []Flag // cairn with no command
	Commands []Command
	Values   map[string][]string // flag name -> its fixed values
	// FileFlags take a path; Args are the fixed words a command takes as
	// arguments.
	FileFlags []string
	Args      map[string][]string
}

func (s *Spec) names() []string {
	var out []string
	for _, c := range s.Commands {
		out = append(out, c.Name)
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

func dashed(flags []Flag) string {
	var out []string
	for _, f := range flags {
		out = append(out, dash(f.Name))
	}
	return strings.Join(out, " ")
}

// WriteBash writes the bash completion script of s.
func WriteBash(w io.Writer, s *Spec) {
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
	for _, name := range sortedKeys(s.Values) {
		fmt.Fprintf(w, "    --%s | -%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, name, strings.Join(s.Values[name], " "))
	}
	var files []string
	for _, f := range s.FileFlags {
		files = append(files, "--"+f, "-"+f)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return f == "--o" })
	fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n    esac\n    case \"$cmd\" in\n", strings.Join(files, " | "))
	fmt.Fprintf(w, "    \"\") if [[ $cur == -* ]]; then words=%q; else words=%q; fi ;;\n", dashed(s.Top), strings.Join(s.names(), " "))
	fmt.Fprintf(w, "    help) words=%q ;;\n", strings.Join(s.names(), " "))
	for _, c := range s.Commands {
		if c.Name == "help" {
			continue
		}
		args := strings.Join(s.Args[c.Name], " ")
		fmt.Fprintf(w, "    %s) if [[ $cur == -* ]]; then words=%q; else words=%q; fi ;;\n", c.Name, dashed(c.Flags), args)
	}
	fmt.Fprint(w, `    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cairn cairn
`)
}

// zshQuote quotes s for a zsh single-quoted word.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// WriteZsh writes the zsh completion script of s.
func WriteZsh(w io.Writer, s *Spec) {
	fmt.Fprint(w, "#compdef cairn\n# zsh completion for cairn: cairn completion zsh > \"${fpath[1]}/_cairn\"\n_cairn() {\n    local -a cmds\n    cmds=(\n")
	for _, c := range s.Commands {
		fmt.Fprintf(w, "        %s\n", zshQuote(c.Name+":"+strings.ReplaceAll(c.Summary, ":", `\:`)))
	}
	fmt.Fprint(w, "    )\n    local cmd=\"\" i\n    for ((i = 2; i < CURRENT; i++)); do\n")
	fmt.Fprint(w, "        if (( ${cmds[(I)${words[i]}:*]} )); then cmd=${words[i]}; break; fi\n    done\n")
	fmt.Fprint(w, "    case ${words[CURRENT-1]} in\n")
	for _, name := range sortedKeys(s.Values) {
		fmt.Fprintf(w, "    --%s|-%s) compadd -- %s; return ;;\n", name, name, strings.Join(s.Values[name], " "))
	}
	var files []string
	for _, f := range s.FileFlags {
		files = append(files, "--"+f, "-"+f)
	}
	fmt.Fprintf(w, "    %s) _files; return ;;\n    esac\n", strings.Join(files, "|"))
	zflags := func(flags []Flag) string {
		var out []string
		for _, f := range flags {
			out = append(out, zshQuote(dash(f.Name)+":"+strings.ReplaceAll(f.Usage, ":", `\:`)))
		}
		return strings.Join(out, " ")
	}
	fmt.Fprint(w, "    local -a opts args\n    case $cmd in\n")
	fmt.Fprintf(w, "    \"\") opts=(%s); args=() ;;\n", zflags(s.Top))
	fmt.Fprint(w, "    help) opts=(); args=(${cmds%%:*}) ;;\n")
	for _, c := range s.Commands {
		if c.Name == "help" {
			continue
		}
		fmt.Fprintf(w, "    %s) opts=(%s); args=(%s) ;;\n", c.Name, zflags(c.Flags), strings.Join(s.Args[c.Name], " "))
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

// WriteFish writes the fish completion script of s.
func WriteFish(w io.Writer, s *Spec) {
	fmt.Fprint(w, "# fish completion for cairn: cairn completion fish > ~/.config/fish/completions/cairn.fish\ncomplete -c cairn -f\n")
	for _, c := range s.Commands {
		fmt.Fprintf(w, "complete -c cairn -n __fish_use_subcommand -a %s -d %s\n", c.Name, fishQuote(c.Summary))
	}
	fmt.Fprintf(w, "complete -c cairn -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(s.names(), " ")))
	flagLine := func(cond string, f Flag) {
		opt := "-l " + f.Name
		if len(f.Name) == 1 {
			opt = "-s " + f.Name
		}
		line := fmt.Sprintf("complete -c cairn -n %s %s -d %s", fishQuote(cond), opt, fishQuote(f.Usage))
		switch {
		case f.IsBool:
		case s.Values[f.Name] != nil:
			line += " -x -a " + fishQuote(strings.Join(s.Values[f.Name], " "))
		case slices.Contains(s.FileFlags, f.Name):
			line += " -r -F"
		default:
			line += " -x"
		}
		fmt.Fprintln(w, line)
	}
	for _, f := range s.Top {
		flagLine("__fish_use_subcommand", f)
	}
	for _, c := range s.Commands {
		cond := "__fish_seen_subcommand_from " + c.Name
		for _, f := range c.Flags {
			flagLine(cond, f)
		}
		if a := s.Args[c.Name]; a != nil {
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
