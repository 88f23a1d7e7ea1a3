package hooks

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// Memories is what the hook flows need of the memory lifecycle
// (core.Service has it): recall, the one write path, access tracking,
// redaction, the kill switch, and moving a project's memories to the
// identity it resolves to (project identity).
type Memories interface {
	Recall(ctx context.Context, in core.RecallInput) (*core.RecallResult, error)
	Remember(ctx context.Context, in core.RememberInput, actor core.Actor) (*core.RememberResult, error)
	RecordAccess(ctx context.Context, ids []string)
	Redact(body string) string
	CheckFrozen() error
	RemapProjectTx(ctx context.Context, tx storage.Tx, from, to string, actor core.Actor) error
	TermDocCounts(ctx context.Context, terms []string) (map[string]int, error)
}

// Deps are what Hooks are built from (New).
type Deps struct {
	// Memories is the memory lifecycle (the Service).
	Memories Memories
	// Sessions records the sessions the hooks see and their continuity.
	Sessions *sessions.Sessions
	// Predictor is the learned ranker; Feedback the aspect feedback.
	Predictor *ranker.Predictor
	Feedback  *ranker.Feedback
	// DB is the store: read-only queries (candidates, scopes, projects)
	// and the transaction of a project's remap.
	DB     *storage.DB
	Config config.Config
	Now    func() time.Time
	Logger *slog.Logger
	// EmbedModel is the embedding model's name ("" without one): the
	// prompt gate's similarity floor is measured per model (InjectFloor).
	EmbedModel string
}

// Hooks runs the agent hook flows of one store (session start, each
// prompt, session end, remember and recall, compaction) and resolves the
// projects they name.
type Hooks struct {
	mem        Memories
	sessions   *sessions.Sessions
	predictor  *ranker.Predictor
	feedback   *ranker.Feedback
	db         *storage.DB
	cfg        config.Config
	now        func() time.Time
	log        *slog.Logger
	embedModel string
}

// New returns the Hooks built from d.
func New(d Deps) *Hooks {
	return &Hooks{mem: d.Memories, sessions: d.Sessions, predictor: d.Predictor, feedback: d.Feedback,
		db: d.DB, cfg: d.Config, now: d.Now, log: d.Logger, embedModel: d.EmbedModel}
}

// timestamp is the clock's now in the store's time format.
func (hk *Hooks) timestamp() string { return storage.FormatTime(hk.now()) }

// frozen says whether the kill switch is on (hooks then record nothing).
func (hk *Hooks) frozen() bool { return hk.mem.CheckFrozen() != nil }

// Request is what every hook endpoint reads: the reference's fields,
// snake_case or camelCase, plus Claude Code's own names.
type Request struct {
	Harness        string
	Project        string
	SessionKey     string
	Prompt         string
	LastAssistant  string
	TranscriptPath string
	Transcript     string
	Reason         string
	Source         string
	Content        string
	Query          string
	Summary        string
	Who            string
	Type           string
	IdempotencyKey string
	RuntimePath    string
	Tags           []string
	Importance     *float64
	Pinned         *bool
	Limit          int
	// Confined keeps the hook to Project's own memories: no other
	// project's, none without a project, whatever hooks.cross_project
	// says (the caller's token is scoped to Project).
	Confined bool
	// Caller, when named, is who the hook's writes are recorded as (the
	// caller's token); otherwise the harness is.
	Caller core.Actor
	// ProjectResolved says Project is an identity the hook shim resolved
	// on the user's side (its repository root): it is only normalized.
	// Otherwise Project (an older shim's working directory, a short name)
	// is resolved by strings against the known projects (ResolveProject).
	ProjectResolved bool
	// ProjectNames are short names stored for Project that could not be
	// moved into it yet (adoptNames): the hook matches them too.
	ProjectNames []string

	// TranscriptWarning is what the sender (the hook shim) could not read
	// of the transcript file.
	TranscriptWarning string
	// Instructions are what the user asked a compaction to keep (Claude
	// Code's PreCompact custom_instructions, typed after /compact).
	Instructions string
	// ReadOnly is a caller that may only read (a readonly token): the hook
	// answers as for anyone but leaves no trace: no session rows, no
	// access counts, no project moved.
	ReadOnly bool
}

// keeps reports whether h's hook may record what it did (sessions,
// injections, uses): the kill switch is off and the caller may write.
func (hk *Hooks) keeps(h Request) bool { return !h.ReadOnly && !hk.frozen() }

// shown is stored text as an agent is handed it: secrets redacted, and no
// control character or escape sequence (text.Display).
func (hk *Hooks) shown(s string) string { return text.Display(hk.mem.Redact(s)) }

// checkIdentifiers refuses a request whose identifiers hold control or
// invisible characters, naming the field (core.CheckIdentifiers); the
// project is checked where it is resolved.
func (h *Request) checkIdentifiers() error {
	if e := core.CheckIdentifiers(h.Tags, "harness", h.Harness, "session_key", h.SessionKey, "who", h.Who, "type", h.Type,
		"idempotency_key", h.IdempotencyKey, "runtime_path", h.RuntimePath, "source", h.Source); e != nil {
		return e
	}
	return nil
}

// actor is who h's writes are recorded as.
func (h Request) actor() core.Actor {
	if h.Caller.Name == "" {
		return core.Actor{Name: h.Harness, Type: core.ActorHarness, SessionID: h.SessionKey}
	}
	a := h.Caller
	a.SessionID = h.SessionKey
	return a
}

// ref is the session h speaks for.
func (h Request) ref() sessions.Ref {
	return sessions.Ref{Key: h.SessionKey, Harness: h.Harness, Project: h.Project}
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

func shortDate(ts string) string {
	t, err := storage.ParseTime(ts)
	if err != nil {
		return ts
	}
	return t.Format("Jan 2, 2006")
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
