package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	cairn "github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/project"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/text"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// Claude Code's cap on additionalContext; longer text is replaced by a
// file path and a short preview.
const hookContextCap = 10000

// hookStdinLimit bounds what the shim reads from stdin.
const hookStdinLimit = 16 << 20

// hookEvent maps a `cairn hook EVENT` to its endpoint and Claude Code name.
type hookEvent struct {
	path      string // /api/hooks/...
	ccName    string // hookEventName in the output; empty: print nothing
	spool     string // spool kind when cairn is down; empty: drop
	timeout   time.Duration
	transform func(in map[string]any)
}

var hookEvents = map[string]hookEvent{
	"session-start":      {path: "session-start", ccName: "SessionStart", timeout: 2 * time.Second},
	"user-prompt-submit": {path: "user-prompt-submit", ccName: "UserPromptSubmit", timeout: 2 * time.Second},
	"pre-compact":        {path: "pre-compaction", timeout: 2 * time.Second},
	"post-compact": {path: "compaction-complete", timeout: 2 * time.Second, spool: "", transform: func(in map[string]any) {
		if _, ok := in["summary"]; !ok {
			in["summary"] = in["compact_summary"]
		}
	}},
	"session-end": {path: "session-end", spool: "session-end", timeout: time.Second},
	"remember":    {path: "remember", spool: "remember", timeout: 2 * time.Second},
}

// runHook is the Claude Code hook shim. It never blocks the agent: with
// cairn down, bad input or a slow answer it exits 0 printing nothing, and
// writes it could not deliver go to the spool for the next start.
func runHook(ctx context.Context, args []string) error {
	if os.Getenv("CAIRN_NO_HOOKS") == "1" {
		return nil
	}
	fs, common := newFlagSet("hook", "hook [flags] EVENT  (session-start, user-prompt-submit, pre-compact, post-compact, session-end, remember)")
	harness := fs.String("harness", "claude-code", "harness name recorded with what the hook stores")
	timeout := fs.Duration("timeout", 0, "how long to wait for cairn (default 2s; session-end 1s)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return err
		}
		return errors.New(err.Error()) // exit 1: non-blocking for Claude Code
	}
	if len(pos) != 1 {
		return errors.New("usage: cairn hook EVENT")
	}
	ev, ok := hookEvents[pos[0]]
	if !ok {
		return fmt.Errorf("unknown hook event %q", pos[0])
	}
	if *timeout > 0 {
		ev.timeout = *timeout
	}
	deadline := time.Now().Add(ev.timeout)
	in := readHookInput(os.Stdin, ev.timeout, pos[0] == "remember")
	if in == nil {
		return nil
	}
	in["harness"] = *harness
	if ev.transform != nil {
		ev.transform(in)
	}
	a, err := loadApp(common)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook:", err)
		return nil
	}
	hookProject(a, in)
	// The prompt hook's transcript path, for a long session's learning
	// (sendTranscript); the request itself does not carry it.
	promptTranscript, _ := in["transcript_path"].(string)
	if pos[0] == "session-end" || pos[0] == "pre-compact" {
		// cairn never opens a path a request names: the shim, running as
		// the user, reads the transcript and sends its text (at a
		// compaction too: what the session taught so far is learned
		// then). The wait for cairn starts once it is read (reading is
		// bounded by its size).
		attachTranscript(in, a.cfg.Hooks.TranscriptMaxChars)
		deadline = time.Now().Add(ev.timeout)
	}
	if pos[0] == "remember" {
		if _, ok := in["idempotency_key"]; !ok {
			content, _ := in["content"].(string)
			session, _ := in["session_id"].(string)
			sum := sha256.Sum256([]byte(session + "\x00" + content))
			in["idempotency_key"] = "hook:" + hex.EncodeToString(sum[:12])
		}
	}

	st := findServer(a, deadline)
	var out map[string]any
	if st.addr != "" {
		out, err = postHook(ctx, st.addr, *harness, ev.path, in, deadline)
	} else {
		err = errors.New("cairn is not running")
	}
	if err != nil {
		up := st.addr != ""
		var answered *core.Error // cairn got the event and refused it
		// A live instance that answered too slowly for a session end still
		// finishes it (the handler outlives the request); spooling it too
		// would only redo the work.
		slowEnd := up && ev.spool == "session-end" && errors.Is(err, context.DeadlineExceeded)
		// A refusal is final, except a storage fault (a full disk, a
		// damaged file): the write is kept for a later start.
		refused := errors.As(err, &answered) && !core.IsStorageFault(answered.Code)
		if ev.spool != "" && !refused && !slowEnd {
			spoolHook(a, ev.spool, in)
		}
		if up || refused {
			return nil
		}
		// Nobody serves the store: answer this hook from it (read-only),
		// and start a server for the next ones (its start ingests what was
		// just spooled).
		if ev.ccName != "" {
			out, err = answerLocally(ctx, a, pos[0], in)
			if err != nil {
				fmt.Fprintln(os.Stderr, "cairn hook:", err)
			}
		}
		if !st.held && a.cfg.Hooks.Autostart {
			defer startBackground(a, common)
		}
		if err != nil || out == nil {
			return nil
		}
	}
	if ev.ccName == "" {
		return nil
	}
	if learn, _ := out["learn"].(bool); learn && promptTranscript != "" {
		// A long session: cairn asks for the transcript so far, to learn
		// from it before the session ends (after this answer is printed).
		defer sendTranscript(ctx, st.addr, *harness, in, promptTranscript, a.cfg.Hooks.TranscriptMaxChars, deadline)
	}
	inject, _ := out["inject"].(string)
	if strings.TrimSpace(inject) == "" {
		return nil
	}
	if r := []rune(inject); len(r) > hookContextCap {
		inject = string(r[:hookContextCap-len("\n[truncated]")]) + "\n[truncated]"
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": ev.ccName, "additionalContext": inject}})
}

// sendTranscript posts a live session's transcript so far to
// /api/hooks/session-transcript within the hook's deadline; a failure
// only loses this early learning (the session's end sends it again).
func sendTranscript(ctx context.Context, addr, harness string, in map[string]any, path string, maxChars int, deadline time.Time) {
	body := map[string]any{"transcript_path": path}
	for _, k := range []string{"session_id", "cwd", "project", "project_resolved", "harness"} {
		if v, ok := in[k]; ok {
			body[k] = v
		}
	}
	attachTranscript(body, maxChars)
	if _, ok := body["transcript"]; !ok || time.Until(deadline) <= 0 {
		return
	}
	_, _ = postHook(ctx, addr, harness, "session-transcript", body, deadline)
}

// readHookInput reads the hook JSON from stdin within wait. Empty,
// truncated or non-object input yields nil, except for remember, where
// plain text is the content.
func readHookInput(r io.Reader, wait time.Duration, textOK bool) map[string]any {
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, hookStdinLimit+1))
		ch <- result{data, err}
	}()
	var data []byte
	select {
	case res := <-ch:
		if res.err != nil || len(res.data) > hookStdinLimit {
			return nil
		}
		data = res.data
	case <-time.After(wait):
		return nil
	}
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil || in == nil {
		if textOK && len(bytes.TrimSpace(data)) > 0 && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			return map[string]any{"content": string(data)}
		}
		return nil
	}
	return in
}

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
func findServer(a *app, deadline time.Time) hookServer {
	if !lockHeld(a.paths.Database) {
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

// lockHeld reports whether a process holds dbPath's lock, by trying a
// shared lock on the lock file without writing it (cairn's owner holds an
// exclusive one).
func lockHeld(dbPath string) bool {
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

// hookProject sets the event's project to the identity of the agent's
// working directory, resolved here, on the user's side (the server never
// stats a path a request names): its repository root. A project the
// harness named itself is left to the server to resolve.
func hookProject(a *app, in map[string]any) {
	if p, _ := in["project"].(string); strings.TrimSpace(p) != "" {
		return
	}
	cwd, _ := in["cwd"].(string)
	if !filepath.IsAbs(cwd) {
		wd, err := os.Getwd()
		if err != nil {
			return
		}
		cwd = wd
	}
	in["project"] = project.ForDir(a.cfg.Projects, cwd)
	in["project_resolved"] = true
}

// answerLocally answers an inject event from the store opened read-only,
// while no cairn serves it: keyword recall (no embedding model is loaded
// for one hook), nothing recorded (the session's first prompt numbers and
// injections are not counted).
func answerLocally(ctx context.Context, a *app, event string, in map[string]any) (map[string]any, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	h, err := httpapi.DecodeHookRequest(body)
	if err != nil {
		return nil, err
	}
	db, err := storage.OpenReadOnly(ctx, storage.Options{Path: a.paths.Database, BusyTimeout: a.cfg.Storage.BusyTimeout.D()})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no store yet: nothing to inject
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cfg := *a.cfg
	cfg.Pipeline.MutationsFrozen = true
	hk := cairn.New(db, cfg, cairn.Options{Logger: a.log}).Hooks
	switch event {
	case "session-start":
		res, err := hk.SessionStart(ctx, h)
		if err != nil {
			return nil, err
		}
		return map[string]any{"inject": res.Inject}, nil
	case "user-prompt-submit":
		if strings.TrimSpace(h.Prompt) == "" {
			return nil, nil
		}
		res, err := hk.UserPrompt(ctx, h)
		if err != nil {
			return nil, err
		}
		return map[string]any{"inject": res.Inject}, nil
	}
	return nil, nil
}

// startBackground starts `cairn serve --idle-exit` for the next hooks,
// detached from the agent: its own session, no terminal, stdin from
// /dev/null and output to the log file. It does not wait for it.
func startBackground(a *app, common *commonFlags) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: start cairn:", err)
		return
	}
	args := []string{"serve", "--idle-exit", a.cfg.Hooks.AutostartIdleExit.D().String()}
	for _, f := range []struct{ name, value string }{
		{"--home", common.home}, {"--config", common.config}, {"--db", common.db}, {"--addr", common.addr},
	} {
		if f.value != "" {
			args = append(args, f.name, f.value)
		}
	}
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

// hookResponseMax bounds what the shim reads of cairn's answer.
const hookResponseMax = 4 << 20

// postHook posts one hook event to the running cairn within deadline. An
// answer with an error status is reported on stderr and returned as
// *client.APIError (around a *core.Error).
func postHook(ctx context.Context, addr, harness, path string, in map[string]any, deadline time.Time) (map[string]any, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c := client.New(addr, client.Options{Actor: core.Actor{Name: harness, Type: core.ActorHarness}, MaxResponse: hookResponseMax})
	out, err := c.Hook(ctx, path, in)
	// A server that recorded its address is about to listen.
	for errors.Is(err, syscall.ECONNREFUSED) && time.Until(deadline) > 50*time.Millisecond {
		time.Sleep(25 * time.Millisecond)
		out, err = c.Hook(ctx, path, in)
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(os.Stderr, "cairn hook %s: HTTP %d: %s\n", path, client.StatusOf(err), errorBody(ce))
	}
	return out, err
}

// errorBody renders an API error as the JSON body it came in, or its
// message when the body was not the API's.
func errorBody(e *core.Error) string {
	if e.Extra == nil {
		return e.Message
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(e.Extra) != nil {
		return e.Message
	}
	return strings.TrimSpace(b.String())
}

// transcriptReadMax bounds what the shim reads of a transcript file: a
// larger file is read as its first and last halves of this size (the
// start of a session and its end matter most), so neither time nor memory
// grows with the file.
const transcriptReadMax = 32 << 20

// attachTranscript replaces in's transcript_path by the transcript's
// normalized text (within maxChars characters, beginning and end kept).
// A path that cannot be read is dropped with a note on stderr: the session
// end is still recorded.
func attachTranscript(in map[string]any, maxChars int) {
	p, _ := in["transcript_path"].(string)
	delete(in, "transcript_path")
	if p == "" {
		return
	}
	if s, _ := in["transcript"].(string); s != "" {
		return // the harness sent the text itself
	}
	tr, err := readTranscript(p, maxChars)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: transcript:", err)
		return
	}
	in["transcript"] = tr.Text
	if w := tr.Warning(); w != "" {
		in["transcript_warning"] = w
	}
}

// readTranscript reads and normalizes a transcript file: a regular file
// only (a FIFO or a device would block or never end), at most
// transcriptReadMax bytes of it. What cannot be read of it is left out
// and said in the transcript's warning.
func readTranscript(path string, maxChars int) (*text.Transcript, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	var r io.Reader = f
	if size := st.Size(); size > transcriptReadMax {
		half := int64(transcriptReadMax / 2)
		r = io.MultiReader(io.NewSectionReader(f, 0, half), strings.NewReader("\n"), io.NewSectionReader(f, size-half, half))
	}
	tr, err := text.NormalizeTranscript(io.LimitReader(r, transcriptReadMax+1), maxChars)
	if err != nil {
		return nil, err
	}
	if st.Size() > transcriptReadMax {
		tr.Truncated = true // the middle of the file was not read
	}
	return tr, nil
}

func spoolHook(a *app, kind string, in map[string]any) {
	if kind == "session-end" {
		attachTranscript(in, a.cfg.Hooks.TranscriptMaxChars) // the file may be gone by the next start
	}
	body, err := json.Marshal(in)
	if err == nil {
		_, err = httpapi.WriteSpool(a.paths.DataDir, httpapi.SpoolEntry{Kind: kind, At: storage.FormatTime(time.Now()), Body: body})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: spool:", err)
	}
}
