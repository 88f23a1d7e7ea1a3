package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
)

// Server is a cairn process started for a benchmark: the real binary
// running `cairn serve` on a throwaway home folder, with every background
// worker, reached only through its HTTP API — the product as users run it.
type Server struct {
	Name   string // the configuration's name in reports ("default", …)
	Addr   string
	Client *client.Remote

	home   string
	keep   bool
	bin    string
	env    []string
	cmd    *exec.Cmd
	stderr *tailBuffer
	done   chan struct{}
	err    error // the process's exit, once done is closed
}

// ServerOptions say which binary to run and how to configure it.
type ServerOptions struct {
	Name string
	// Binary is the cairn executable; empty means this process's own.
	Binary string
	// Set are config overrides as section.key=value, passed to the
	// child as CAIRN_<SECTION>_<KEY> variables.
	Set []string
	// Keep leaves the server's home folder (database, log) in place for
	// inspection; Home says where it is.
	Keep bool
	// ExtraEnv is appended to the child's environment as it is (tests use
	// it to make a test binary act as cairn).
	ExtraEnv []string
	// Home, when set, is an existing home folder (a stopped server's,
	// kept) to serve instead of a new one; it is never removed. Settings
	// that only change ranking are measured so over one ingest.
	Home string
}

// StartServer starts a server and waits until its API answers /health.
// The child's environment carries none of the caller's CAIRN_ variables,
// so a user's own settings never leak into a figure.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	bin := o.Binary
	if bin == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find the cairn binary: %w", err)
		}
		bin = self
	}
	home, keep := o.Home, o.Keep || o.Home != ""
	if home == "" {
		var err error
		if home, err = os.MkdirTemp("", "cairn-bench-"); err != nil {
			return nil, err
		}
	}
	// removeHome undoes a failed start: a home made here goes.
	removeHome := func() {
		if o.Home == "" {
			os.RemoveAll(home)
		}
	}
	addr, err := FreeAddr()
	if err != nil {
		removeHome()
		return nil, err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_") {
			env = append(env, kv)
		}
	}
	env = append(env, "CAIRN_HOME="+home, "CAIRN_ADDR="+addr)
	for _, kv := range o.Set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			removeHome()
			return nil, fmt.Errorf("--set %q: want section.key=value", kv)
		}
		env = append(env, config.EnvName(strings.TrimSpace(k))+"="+v)
	}
	env = append(env, o.ExtraEnv...)
	s := &Server{Name: o.Name, Addr: addr, home: home, keep: keep, bin: bin, env: env, stderr: &tailBuffer{max: 16 << 10}}
	if err := s.spawn(); err != nil {
		removeHome()
		return nil, err
	}
	s.Client = client.HTTP(addr, client.Options{Timeout: 2 * time.Minute})
	deadline := time.Now().Add(60 * time.Second)
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		err := s.Client.Health(hctx)
		cancel()
		if err == nil {
			return s, nil
		}
		select {
		case <-s.done:
			removeHome()
			return nil, fmt.Errorf("cairn serve exited before answering (%v): %s", s.err, s.stderr.String())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("cairn serve did not answer /health within 60 s: %s", s.stderr.String())
		}
	}
}

// spawn starts the process.
func (s *Server) spawn() error {
	s.done = make(chan struct{})
	s.cmd = exec.Command(s.bin, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, s.stderr
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s serve: %w", s.bin, err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	return nil
}

// firstAnswerPoll is how often Respawn asks again while the server does
// not answer yet: short beside the start-up it measures.
const firstAnswerPoll = 2 * time.Millisecond

// Respawn stops the server and starts it again on the same home folder
// (database, config), as a user's next session does, and sends ask
// until it succeeds: it returns the time from the process's start to
// that first answer.
func (s *Server) Respawn(ctx context.Context, ask func(context.Context) error) (time.Duration, error) {
	if err := s.Stop(); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := s.spawn(); err != nil {
		return 0, err
	}
	deadline := t0.Add(60 * time.Second)
	for {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ask(actx)
		cancel()
		if err == nil {
			return time.Since(t0), nil
		}
		select {
		case <-s.done:
			return 0, fmt.Errorf("cairn serve exited before answering (%v): %s", s.err, s.stderr.String())
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(firstAnswerPoll):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s: no answer within 60 s of the start: %v", s.Name, err)
		}
	}
}

// RSS is the server process's resident memory in bytes, from /proc; ok
// is false where that is not available.
func (s *Server) RSS() (int64, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "status"))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// freeAddr returns a loopback address with a port nothing listens on.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// CPU is the CPU time (user + system) the server process has used so far,
// from /proc; ok is false where that is not available.
func (s *Server) CPU() (time.Duration, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "stat"))
	if err != nil {
		return 0, false
	}
	return ParseProcCPU(b)
}

// clockTicks is USER_HZ, the unit of /proc's CPU times; it is 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// ParseProcCPU reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// line. The command name (field 2) may hold spaces and parentheses, so
// fields are counted from the last ')'.
func ParseProcCPU(b []byte) (time.Duration, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): utime is field 14, f[11]; stime f[12].
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+st) * time.Second / clockTicks, true
}

// Backlog is the background work a server still has: extraction jobs
// waiting or running, and memories without a vector.
type Backlog struct {
	Jobs             int
	Embeddings       int
	PendingProposals int64
	Memories         int64
}

// Backlog asks the server what work it still has.
func (s *Server) Backlog(ctx context.Context) (Backlog, error) {
	st, err := s.Client.Status(ctx)
	if err != nil {
		return Backlog{}, err
	}
	b := Backlog{Jobs: st.Queue["pending"] + st.Queue["leased"] + st.Queue["failed"],
		PendingProposals: st.Counts.PendingProposals, Memories: st.Counts.Memories}
	es, err := s.Client.EmbeddingStatus(ctx)
	if err != nil {
		return Backlog{}, err
	}
	if es.Provider != "none" {
		if n, ok := es.Coverage["pending"].(float64); ok {
			b.Embeddings = int(n)
		}
	}
	return b, nil
}

// Drain waits until the server has no background work left: the
// extraction queue is empty and every memory has its vector. It reports
// progress every few seconds.
func (s *Server) Drain(ctx context.Context, timeout time.Duration, progress io.Writer) (Backlog, error) {
	deadline := time.Now().Add(timeout)
	last := time.Now()
	for {
		b, err := s.Backlog(ctx)
		if err != nil {
			return b, fmt.Errorf("%s: backlog: %w", s.Name, err)
		}
		if b.Jobs == 0 && b.Embeddings == 0 {
			return b, nil
		}
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			fmt.Fprintf(progress, "bench: %s: draining: %d jobs, %d embeddings left\n", s.Name, b.Jobs, b.Embeddings)
		}
		if time.Now().After(deadline) {
			return b, fmt.Errorf("%s: background work not done after %s: %d jobs, %d embeddings left", s.Name, timeout, b.Jobs, b.Embeddings)
		}
		select {
		case <-ctx.Done():
			return b, ctx.Err()
		case <-s.done:
			return b, fmt.Errorf("%s: cairn serve exited (%v): %s", s.Name, s.err, s.stderr.String())
		case <-time.After(100 * time.Millisecond): // polls are requests too: few
		}
	}
}

// WaitEmbedderReady waits until the embedding model is loaded and the
// vector index is built (or there is no embedder).
func (s *Server) WaitEmbedderReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		es, err := s.Client.EmbeddingStatus(ctx)
		if err != nil {
			return fmt.Errorf("%s: embedding status: %w", s.Name, err)
		}
		if es.Provider == "none" || es.IndexReady {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: the embedder was not ready within %s", s.Name, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Stop ends the server (SIGTERM: it finishes in-flight writes and
// checkpoints the WAL) and waits for it, killing it after 30 s. The home
// folder stays until Remove.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		return errors.New(s.Name + ": cairn serve did not stop within 30 s; killed")
	}
	var ee *exec.ExitError
	if s.err != nil && !errors.As(s.err, &ee) {
		return s.err
	}
	return nil
}

// DatabaseBytes is the size of the database files (the database, its WAL
// and shared memory) in the server's home folder.
func (s *Server) DatabaseBytes() int64 {
	return s.filesBytes(".db", ".db-wal", ".db-shm")
}

// WALBytes is the size of the database's write-ahead log.
func (s *Server) WALBytes() int64 { return s.filesBytes(".db-wal") }

// filesBytes adds up the sizes of the files under the home folder whose
// names end with one of suffixes.
func (s *Server) filesBytes(suffixes ...string) int64 {
	var n int64
	_ = filepath.WalkDir(s.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, suf := range suffixes {
			if strings.HasSuffix(d.Name(), suf) {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
				break
			}
		}
		return nil
	})
	return n
}

// Home is the server's home folder (config, data, logs).
func (s *Server) Home() string { return s.home }

// Remove stops the server and deletes its home folder, unless it is kept.
func (s *Server) Remove() error {
	err := s.Stop()
	if s.keep {
		return err
	}
	if rerr := os.RemoveAll(s.home); err == nil {
		err = rerr
	}
	return err
}

// tailBuffer keeps the last max bytes written to it (a child's stderr, for
// error messages).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
