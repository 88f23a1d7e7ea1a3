package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui"
	"github.com/cairnmem/cairn/tui/pane"
)

// runDefault is `cairn` with no command: the store, the HTTP API (and the
// workers) in this process with the terminal UI in front. Without a
// terminal (CI, pipes, a service manager) it runs headless like `cairn
// serve` and says so.
func runDefault(ctx context.Context, args []string) error {
	fs, common := newFlagSet("", "[flags]")
	themeName := fs.String("theme", "", "terminal UI theme: "+fmt.Sprint(themes.BuiltinNames())+" or NAME for <config folder>/themes/NAME.toml (tui.theme; unset: dark or light from the terminal)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := a.openLog(false); err != nil {
		return err
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return a.serve(ctx, func(addr string) {
			fmt.Fprintf(os.Stderr, "cairn %s: not a terminal, so no UI: serving the API on http://%s (database %s; logs %s). Ctrl+C stops.\n",
				cairnVersion(), addr, a.paths.Database, a.paths.LogFile)
		})
	}
	theme, err := a.theme(*themeName)
	if err != nil {
		return err
	}
	return a.runTUI(ctx, theme)
}

// theme resolves the theme: the flag, else the config key tui.theme, else
// nil (dark or light from the terminal's background).
func (a *app) theme(name string) (*themes.Theme, error) {
	if name == "" {
		name = a.cfg.TUI.Theme
	}
	if name == "" {
		return nil, nil
	}
	dir := filepath.Join(filepath.Dir(a.paths.ConfigFile), "themes")
	return themes.Load(name, dir)
}

// runTUI runs the UI in front of the API and the workers (a.host). On
// quit it stops accepting requests, lets in-flight ones finish, stops the
// workers, closes the store (checkpointing the WAL) and releases the lock.
func (a *app) runTUI(ctx context.Context, theme *themes.Theme) error {
	st, err := a.openStore(ctx)
	if err != nil {
		var le *storage.LockedError
		if errors.As(err, &le) {
			return a.offerClient(ctx, theme, le)
		}
		return err
	}
	// Quitting the UI ends the run: the API shuts down, the workers stop,
	// and only then is the store closed.
	uiErr, apiErr := a.host(ctx, st, hostOptions{
		listen: func() (net.Listener, error) {
			ln, err := a.listen()
			if err != nil && addrInUse(a.cfg.Server.Addr) {
				_, _ = tui.AskProblem(ctx, theme, tui.Problem{
					Title: "The API address " + a.cfg.Server.Addr + " is taken",
					Lines: []string{
						"Another program listens on " + a.cfg.Server.Addr + ", so cairn cannot serve its API there.",
						"Stop that program, or choose another address:",
						"  cairn --addr 127.0.0.1:3851",
						"  CAIRN_ADDR=127.0.0.1:3851 cairn",
						"or set server.addr in " + a.paths.ConfigFile + ".",
					},
					Choices: []tui.Choice{{Key: "q", Label: "quit"}},
				})
			}
			return ln, err
		},
		started: func(addr string) {
			a.log.Info("cairn started", "version", cairnVersion(), "addr", addr, "db", a.paths.Database, "auth", a.cfg.Auth.Mode, "pipeline", st.svc.PipelineMode(), "ui", true)
		},
		front: func(ctx context.Context, addr string) error {
			return tui.Run(ctx, tui.Options{Client: client.Local(st.app, pane.LocalOptions), Addr: addr, Theme: theme, Version: cairnVersion(), Project: a.currentProject(), Types: core.Types(a.cfg.Memory.ExtraTypes)})
		},
		stopping: func() { a.log.Info("cairn stopping") },
	})
	return errors.Join(uiErr, apiErr)
}

// offerClient explains that another cairn holds the database and offers
// to drive that one through its API.
func (a *app) offerClient(ctx context.Context, theme *themes.Theme, le *storage.LockedError) error {
	addr := a.holderAddr(le.Holder)
	if role := holderRole(le.Holder.PID); role != "" && le.Holder.Addr != "" {
		// A server nobody looks at (started by a hook, `cairn serve`, a
		// service manager, or `cairn mcp`): use it without asking. The tab
		// bar says so (tui.Options has no status line of its own yet).
		a.log.Info("cairn UI as client of a background server", "addr", addr, "pid", le.Holder.PID, "role", role)
		return tui.Run(ctx, tui.Options{Client: pane.Remote(addr), Theme: theme, Project: a.currentProject(), Types: core.Types(a.cfg.Memory.ExtraTypes),
			// The status bar says "client of ADDR"; the tab bar names the
			// process that owns the store.
			Version: fmt.Sprintf("%s · attached to cairn %s (pid %d)", cairnVersion(), role, le.Holder.PID)})
	}
	choice, err := tui.AskProblem(ctx, theme, tui.Problem{
		Title: "The database is in use by another cairn",
		Lines: []string{
			fmt.Sprintf("%s is held by cairn pid %d, serving its API at http://%s.", a.paths.Database, le.Holder.PID, addr),
			"Only one cairn owns a database. You can use that one from here, over its API:",
			"memories, history, the job queue, diagnostics and repairs, and proposals.",
		},
		Choices: []tui.Choice{{Key: "c", Label: "connect to it as a client"}, {Key: "q", Label: "quit"}},
	})
	if err != nil || choice != "c" {
		return err
	}
	a.log.Info("cairn UI as client", "addr", addr, "pid", le.Holder.PID)
	return tui.Run(ctx, tui.Options{Client: pane.Remote(addr), Theme: theme, Version: cairnVersion(), Project: a.currentProject(), Types: core.Types(a.cfg.Memory.ExtraTypes)})
}

// addrInUse reports whether addr cannot be bound because something
// listens there.
func addrInUse(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		ln.Close()
		return false
	}
	return errors.Is(err, syscall.EADDRINUSE)
}

// holderRole names what the cairn holding the database runs when it is a
// background server ("serve" or "mcp"), from its command line; "" for a
// terminal UI, another command, or a process that cannot be read.
func holderRole(pid int) string {
	if pid <= 0 {
		return ""
	}
	var args []string
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		args = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	} else if out, err := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output(); err == nil {
		args = strings.Fields(string(out))
	}
	return backgroundRole(args)
}

// backgroundRole is holderRole on a command line: cairn's command is its
// first argument (a flag first means the terminal UI).
func backgroundRole(args []string) string {
	if len(args) > 1 && (args[1] == "serve" || args[1] == "mcp") {
		return args[1]
	}
	return ""
}
