package shim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairnmem/cairn/storage"
)

// hookServer is what the shim found of the cairn that owns the store.
type hookServer struct {
	addr string // its API, when one serves it
	held bool   // some process holds the store's lock
}

// holderAddrWait bounds how long the shim waits for a holder that has not
// recorded its API address yet (a server starting); a holder that never
// does (an import) does not serve hooks.
const holderAddrWait = 500 * time.Millisecond

// findServer finds the running instance of the configured database: the
// address in its lock file, else server.addr. A lock nobody holds (a
// stale file, a dead pid) means no server, so the shim never waits on a
// dead port.
func findServer(a *env, deadline time.Time) hookServer {
	if a.cfg.Storage.URL != "" {
		// PostgreSQL: servers share the database and keep no lock file;
		// the one this configuration names serves at server.addr.
		return hookServer{addr: a.cfg.Server.Addr, held: true}
	}
	if !LockHeld(a.paths.Database) {
		return hookServer{}
	}
	wait := time.Now().Add(holderAddrWait)
	if deadline.Before(wait) {
		wait = deadline
	}
	for {
		info, ok := storage.ReadLockInfo(a.paths.Database)
		if ok && info.Addr != "" && pidAlive(info.PID) {
			return hookServer{addr: info.Addr, held: true}
		}
		if !time.Now().Before(wait) {
			return hookServer{held: true}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LockHeld reports whether a process holds dbPath's lock, by trying a
// shared lock on the lock file without writing it (cairn's owner holds an
// exclusive one).
func LockHeld(dbPath string) bool {
	f, err := os.Open(storage.LockPath(dbPath))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		return errors.Is(err, unix.EWOULDBLOCK)
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// startBackground starts `cairn serve --idle-exit` for the next hooks,
// detached from the agent: its own session, no terminal, stdin from
// /dev/null and output to the log file. It does not wait for it.
func startBackground(a *env) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: start cairn:", err)
		return
	}
	args := append([]string{"serve", "--idle-exit", a.cfg.Hooks.AutostartIdleExit.D().String()}, a.serveArgs...)
	if err := os.MkdirAll(filepath.Dir(a.paths.LogFile), 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: start cairn:", err)
		return
	}
	logf, err := os.OpenFile(a.paths.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: start cairn:", err)
		return
	}
	defer logf.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: start cairn:", err)
		return
	}
	_ = cmd.Process.Release()
}

func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
