package shim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/harness"
	"github.com/cairnmem/cairn/core/hooks"
	"github.com/cairnmem/cairn/core/project"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

// hookStdinLimit bounds what the shim reads from stdin.
const hookStdinLimit = 16 << 20

// Options configure one run of the hook shim.
type Options struct {
	// Harness is who the hooks' writes are recorded as (--harness).
	Harness string
	// Timeout is how long to wait for cairn; 0 is the event's own.
	Timeout time.Duration
	// Load reads the configuration and its paths; it is called once the
	// event's input is read.
	Load func() (*config.Config, config.Paths, error)
	// ServeArgs are the flags a server started in the background gets
	// besides --idle-exit (the same --home, --config, --db and --addr).
	ServeArgs []string
}

// env is what the shim knows of the installation once loaded.
type env struct {
	cfg       *config.Config
	paths     config.Paths
	log       *slog.Logger
	serveArgs []string
}

// Disabled reports whether the user turned the hooks off
// (CAIRN_NO_HOOKS=1): the shim then does nothing at all.
func Disabled() bool { return os.Getenv("CAIRN_NO_HOOKS") == "1" }

// Run is the hook shim for one event of h, read from stdin. It never
// blocks the agent: with cairn down, bad input or a slow answer it returns
// nil printing nothing, and writes it could not deliver go to the spool
// for the next start. An unknown event is an error.
func Run(ctx context.Context, h harness.Harness, event string, o Options) error {
	ev, ok := h.Events[event]
	if !ok {
		return fmt.Errorf("unknown hook event %q", event)
	}
	if o.Timeout > 0 {
		ev.Timeout = o.Timeout
	}
	who := o.Harness
	if who == "" {
		who = h.Name
	}
	deadline := time.Now().Add(ev.Timeout)
	in := readHookInput(os.Stdin, ev.Timeout, event == "remember")
	if in == nil {
		return nil
	}
	in["harness"] = who
	if harness.Adapt(ev, in) {
		return nil
	}
	cfg, paths, err := o.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook:", err)
		return nil
	}
	a := &env{cfg: cfg, paths: paths, log: slog.New(slog.NewTextHandler(io.Discard, nil)), serveArgs: o.ServeArgs}
	hookProject(a, in)
	// The prompt hook's transcript path, for a long session's learning
	// (sendTranscript); the request itself does not carry it.
	promptTranscript, _ := in["transcript_path"].(string)
	if ev.Transcript {
		// cairn never opens a path a request names: the shim, running as
		// the user, reads the transcript and sends its text (at a
		// compaction too: what the session taught so far is learned
		// then). The wait for cairn starts once it is read (reading is
		// bounded by its size).
		attachTranscript(in, a.cfg.Hooks.TranscriptMaxChars)
		deadline = time.Now().Add(ev.Timeout)
	}
	if event == "remember" {
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
		out, err = postHook(ctx, st.addr, who, ev.Path, in, deadline)
	} else {
		err = errors.New("cairn is not running")
	}
	if err != nil {
		up := st.addr != ""
		var answered *core.Error // cairn got the event and refused it
		// A live instance that answered too slowly for a session end still
		// finishes it (the handler outlives the request); spooling it too
		// would only redo the work.
		slowEnd := up && ev.Spool == "session-end" && errors.Is(err, context.DeadlineExceeded)
		// A refusal is final, except a storage fault (a full disk, a
		// damaged file): the write is kept for a later start.
		refused := errors.As(err, &answered) && !core.IsStorageFault(answered.Code)
		if ev.Spool != "" && !refused && !slowEnd {
			spoolHook(a, ev.Spool, in)
		}
		if up || refused {
			return nil
		}
		// Nobody serves the store: answer this hook from it (read-only),
		// and start a server for the next ones (its start ingests what was
		// just spooled).
		if ev.Name != "" {
			out, err = answerLocally(ctx, a, event, in)
			if err != nil {
				fmt.Fprintln(os.Stderr, "cairn hook:", err)
			}
		}
		if !st.held && a.cfg.Hooks.Autostart {
			defer startBackground(a)
		}
		if err != nil || out == nil {
			return nil
		}
	}
	if ev.Name == "" {
		return nil
	}
	if learn, _ := out["learn"].(bool); learn && promptTranscript != "" && st.addr != "" {
		// A long session: cairn asks for the transcript so far, to learn
		// from it before the session ends (after this answer is printed).
		defer sendTranscript(ctx, st.addr, who, in, promptTranscript, a.cfg.Hooks.TranscriptMaxChars, deadline)
	}
	inject, _ := out["inject"].(string)
	if strings.TrimSpace(inject) == "" {
		return nil
	}
	return h.Print(os.Stdout, ev, inject)
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
	return harness.ParseInput(data, textOK)
}

// DecodeInput is what cairn makes of one hook's stdin for event of h, as
// the shim sends it (before the project and transcript are added): the
// request, or skip, or the error naming the field at fault. Tests and
// fuzzers of each harness's input use it.
func DecodeInput(h harness.Harness, event string, data []byte) (req hooks.Request, skip bool, err error) {
	ev, ok := h.Events[event]
	if !ok {
		return req, false, fmt.Errorf("unknown hook event %q", event)
	}
	in := harness.ParseInput(data, event == "remember")
	if in == nil {
		return req, true, nil
	}
	in["harness"] = h.Name
	if harness.Adapt(ev, in) {
		return req, true, nil
	}
	body, err := json.Marshal(in)
	if err != nil {
		return req, false, err
	}
	req, err = httpapi.DecodeHookRequest(body)
	return req, false, err
}

// hookProject sets the event's project to the identity of the agent's
// working directory, resolved here, on the user's side (the server never
// stats a path a request names): its repository root. A project the
// harness named itself is left to the server to resolve.
func hookProject(a *env, in map[string]any) {
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
func answerLocally(ctx context.Context, a *env, event string, in map[string]any) (map[string]any, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	h, err := httpapi.DecodeHookRequest(body)
	if err != nil {
		return nil, err
	}
	path := a.paths.Database
	if a.cfg.Storage.URL != "" {
		path = a.cfg.Storage.URL
	}
	db, err := storage.OpenReadOnly(ctx, storage.Options{Path: path, PasswordFile: a.cfg.Storage.PasswordFile, BusyTimeout: a.cfg.Storage.BusyTimeout.D()})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no store yet: nothing to inject
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cfg := *a.cfg
	cfg.Pipeline.MutationsFrozen = true
	hk := app.New(db, cfg, app.Options{Logger: a.log}).Hooks
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

// hookResponseMax bounds what the shim reads of cairn's answer.
const hookResponseMax = 4 << 20

// postHook posts one hook event to the running cairn within deadline. An
// answer with an error status is reported on stderr and returned as
// *client.APIError (around a *core.Error).
func postHook(ctx context.Context, addr, harness, path string, in map[string]any, deadline time.Time) (map[string]any, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c := client.HTTP(addr, client.Options{Actor: core.Actor{Name: harness, Type: core.ActorHarness}, MaxResponse: hookResponseMax})
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

func spoolHook(a *env, kind string, in map[string]any) {
	if kind == "session-end" {
		attachTranscript(in, a.cfg.Hooks.TranscriptMaxChars) // the file may be gone by the next start
	}
	body, err := json.Marshal(in)
	if err == nil {
		_, err = WriteSpool(a.paths.DataDir, SpoolEntry{Kind: kind, At: storage.FormatTime(time.Now()), Body: body})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: spool:", err)
	}
}
