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
	"strings"
	"syscall"
	"time"

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
	if cwd, ok := in["cwd"].(string); ok && cwd != "" {
		if _, has := in["project"]; !has {
			in["project"] = cwd
		}
	}
	if ev.transform != nil {
		ev.transform(in)
	}
	a, err := loadApp(common)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook:", err)
		return nil
	}
	if pos[0] == "session-end" {
		// cairn never opens a path a request names: the shim, running as
		// the user, reads the transcript and sends its text. The wait for
		// cairn starts once it is read (reading is bounded by its size).
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

	addr, up := hookAddr(a)
	var out map[string]any
	if up {
		out, err = postHook(ctx, addr, *harness, ev.path, in, deadline)
	} else {
		err = errors.New("cairn is not running")
	}
	if err != nil {
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
		return nil
	}
	if ev.ccName == "" {
		return nil
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

// hookAddr finds the running instance of the configured database: the
// address in its lock file, else server.addr. up is false when no live
// process holds the database, so the shim does not wait on a dead port.
func hookAddr(a *app) (string, bool) {
	info, ok := storage.ReadLockInfo(a.paths.Database)
	if !ok || !pidAlive(info.PID) {
		return "", false
	}
	return a.holderAddr(info), true
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
		fmt.Fprintln(os.Stderr, "cairn hook session-end: transcript:", err)
		return
	}
	in["transcript"] = tr
}

// readTranscript reads and normalizes a transcript file: a regular file
// only (a FIFO or a device would block or never end), at most
// transcriptReadMax bytes of it.
func readTranscript(path string, maxChars int) (string, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	var r io.Reader = f
	if size := st.Size(); size > transcriptReadMax {
		half := int64(transcriptReadMax / 2)
		r = io.MultiReader(io.NewSectionReader(f, 0, half), strings.NewReader("\n"), io.NewSectionReader(f, size-half, half))
	}
	tr, err := text.NormalizeTranscript(io.LimitReader(r, transcriptReadMax+1), maxChars)
	if err != nil {
		return "", err
	}
	return tr.Text, nil
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
