// Command cairn is a local memory for AI coding agents: one program that
// embeds a SQLite store, serves an HTTP API on 127.0.0.1:3850 for agents'
// hooks and tools, and (in a terminal) shows a TUI to browse and steer it.
//
// Usage:
//
//	cairn                 start cairn (store, workers and API) in this terminal
//	cairn serve           the same without a terminal UI
//	cairn remember TEXT   store a memory
//	cairn recall QUERY    search memories
//	cairn list            list memories (show, edit, forget, recover, history ID)
//	cairn export          write every memory as JSONL
//	cairn import FILE     read memories from JSONL
//	cairn config          print the effective configuration
//	cairn version         print the version
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/text"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func cairnVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the store, workers and HTTP API without a terminal UI", runServe},
		{"remember", "store a memory: cairn remember [flags] TEXT", runRemember},
		{"recall", "search memories: cairn recall [flags] QUERY", runRecall},
		{"list", "list memories, newest first: cairn list [--project P] [--type T] [--tags T] [--limit N] [--all]", runList},
		{"show", "print one memory: cairn show ID", runShow},
		{"edit", "change a memory: cairn edit ID [--content TEXT] [--tags T] [--type T] [--importance N] [--pinned] (else $EDITOR)", runEdit},
		{"forget", "forget memories: cairn forget ID... | --query QUERY [--yes]", runForget},
		{"recover", "bring back a forgotten memory: cairn recover ID", runRecover},
		{"history", "every change to a memory: cairn history ID", runHistory},
		{"mcp", "serve the MCP tools over stdio (uses a running cairn, or opens the store)", runMCP},
		{"export", "write memories as JSONL: cairn export [-o FILE]", runExport},
		{"import", "read memories from JSONL: cairn import FILE (or - for stdin)", runImport},
		{"config", "print the effective configuration and where it comes from", runConfig},
		{"status", "which cairn, memories, proposals, what was learned, jobs and model use per day: cairn status [--json]", runStatus},
		{"bench", "run a retrieval benchmark: cairn bench locomo --data FILE", runBench},
		{"hook", "Claude Code hook shim: cairn hook EVENT (reads the hook JSON on stdin)", runHook},
		{"install", "add cairn's hooks and MCP server to an agent: cairn install claude-code|codex|gemini|opencode|cursor", runInstall},
		{"uninstall", "remove what cairn install added: cairn uninstall AGENT", runUninstall},
		{"service", "keep cairn running with systemd or launchd: cairn service install|uninstall|status", runServiceCommand},
		{"token", "sign an API token for team/hybrid auth: cairn token create --role ROLE [--project P]", runToken},
		{"completion", "print a shell completion script: cairn completion bash|zsh|fish", runCompletion},
		{"version", "print the version", runVersionCmd},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		// An error may quote what a server or a file said: shown, never obeyed.
		fmt.Fprintln(os.Stderr, "cairn:", text.Display(err.Error()))
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for a mistake in what was asked (a flag, an argument, a
// configuration value, a field the store refused as invalid), wherever it
// was caught, and 1 for a failure.
func exitCode(err error) int {
	var ue usageError
	var ce *config.ConfigError
	var ve *core.Error
	switch {
	case errors.As(err, &ue), errors.As(err, &ce):
		return 2
	case errors.As(err, &ve) && (ve.Code == core.CodeInvalidRequest || ve.Code == core.CodeInvalidJSON):
		return 2
	}
	return 1
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run dispatches to the command args name; a command that printed its
// help (-h) has done its job.
func run(ctx context.Context, args []string) error {
	if err := dispatch(ctx, args); err != nil && !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

func dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help") {
		return runDefault(ctx, args)
	}
	switch args[0] {
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" {
			for _, c := range commands() {
				if c.name == args[1] {
					return c.run(ctx, []string{"-h"})
				}
			}
			return usageError{fmt.Sprintf("unknown command %q (run `cairn help`)", args[1])}
		}
		printUsage()
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:])
		}
	}
	return usageError{fmt.Sprintf("unknown command %q (run `cairn help`)", args[0])}
}

func printUsage() {
	fmt.Println("cairn: a local memory for AI coding agents")
	fmt.Println()
	fmt.Println("usage: cairn [command] [flags]")
	fmt.Println()
	fmt.Printf("  %-11s %s\n", "(none)", "start cairn in this terminal: store, workers and the HTTP API")
	for _, c := range commands() {
		fmt.Printf("  %-11s %s\n", c.name, c.summary)
	}
	fmt.Println()
	fmt.Println("Common flags: --home DIR (config, data and logs in one folder, like CAIRN_HOME),")
	fmt.Println("--config FILE, --db FILE (an existing one; --create makes it), --addr HOST:PORT, --log-level LEVEL.")
	fmt.Println("Run `cairn help COMMAND` (or `cairn COMMAND -h`) for a command's flags.")
}
