package evolution

import (
	"context"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairnmem/cairn/storage"
)

// Memory that evolves (docs/design/evolution.md).
//
// Reinforcement: the same content remembered again in the same project is
// not a new row; the memory it duplicates counts one more statement
// (reinforced_count, last_confirmed_at) and its history says so.
//
// Keyed facts: a memory may carry a key ("timezone", "staging.db.port").
// In one project a key has one live value: remembering a new value
// supersedes the old memory, which is soft-deleted with superseded_by
// pointing at its successor. It leaves recall and injections, stays in
// history and the deleted list, is never purged by retention, and can be
// recovered at any time.

// History events of evolution.
const (
	EventReinforced = "reinforced"
	EventSuperseded = "superseded"
)

// maxKeyChars bounds a memory key.
const maxKeyChars = 128

// NormalizeKey is a memory key as stored: trimmed, lower-cased, runs of
// space as one. "" stays "" (no key).
func NormalizeKey(k string) (string, *FieldError) {
	if !utf8.ValidString(k) {
		return "", invalid("key", "key is not valid UTF-8")
	}
	k = strings.Join(strings.Fields(strings.ToLower(k)), " ")
	if utf8.RuneCountInString(k) > maxKeyChars {
		return "", invalid("key", "key is %d characters; at most %d", utf8.RuneCountInString(k), maxKeyChars)
	}
	for _, r := range k {
		if unicode.IsControl(r) {
			return "", invalid("key", "key must not hold control characters")
		}
	}
	return k, nil
}

// Reinforce counts one more statement of memory id.
func (t Tx) Reinforce(ctx context.Context, id string) error {
	if err := storage.ReinforceMemory(ctx, t.Tx, id, t.Stamp); err != nil {
		return err
	}
	return t.Record(ctx, id, EventReinforced, "stated again", nil)
}

// Scopes (docs/design/evolution.md, "Scopes and slots"). A memory belongs
// to its project (the default), to the user (it follows the user into every
// project) or to the agent that wrote it (only that agent, its who, sees it
// in its hooks). User and agent memories hold no project.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
	ScopeAgent   = "agent"
)

// NormalizeScope is a scope as stored: "" for the project scope (given as
// "" or "project"), "user" or "agent".
func NormalizeScope(scope string) (string, *FieldError) {
	switch v := strings.ToLower(strings.TrimSpace(scope)); v {
	case "", ScopeProject:
		return "", nil
	case ScopeUser, ScopeAgent:
		return v, nil
	}
	return "", invalid("scope", "scope must be project, user or agent")
}

// Remembered is the evolution of a remembered memory m (deduped when it
// was stored already), in its write transaction: its scope, its key
// (superseding the key's other values in its slot) and the attributes the
// linker reads from it (superseding the values they replace). key and
// scope are normalized (NormalizeKey, NormalizeScope). It returns the
// memories retired.
func (t Tx) Remembered(ctx context.Context, m *storage.Memory, deduped bool, key, scope string) ([]string, error) {
	if !deduped && scope != "" {
		if err := storage.SetMemoryScope(ctx, t.Tx, m.ID, scope); err != nil {
			return nil, err
		}
	}
	if deduped {
		var err error
		if scope, err = storage.MemoryScope(ctx, t.Tx, m.ID); err != nil {
			return nil, err
		}
	}
	var retired []string
	if key != "" {
		r, err := t.supersedeKeyed(ctx, m.ID, key, m.Project, scope, m.Who)
		if err != nil {
			return nil, err
		}
		retired = r
	}
	if deduped || !t.SupersedeAttributes {
		return retired, nil
	}
	r, err := t.readAttributes(ctx, m, Slot(m.Project, scope, m.Who))
	return append(retired, r...), err
}

// supersedeKeyed gives memory id the key and retires the other live
// memories of its slot (project, scope) holding it: each is soft-deleted
// with superseded_by set and a "superseded" history event. It returns
// their ids.
func (t Tx) supersedeKeyed(ctx context.Context, id, key, project, scope, who string) ([]string, error) {
	if err := storage.SetMemoryKey(ctx, t.Tx, id, key); err != nil {
		return nil, err
	}
	old, err := storage.LiveKeyed(ctx, t.Tx, key, project, scope, who, id)
	if err != nil {
		return nil, err
	}
	var retired []string
	for _, o := range old {
		ok, err := t.retire(ctx, o, id, true, map[string]any{"successor": id, "key": key})
		if err != nil {
			return nil, err
		}
		if ok {
			retired = append(retired, o)
		}
	}
	return retired, nil
}

// retire supersedes memory old by successor: a soft delete with
// superseded_by set and a "superseded" history event carrying meta. A
// pinned memory is retired only with force. It reports whether old was
// retired (not when it was already deleted, or pinned without force).
func (t Tx) retire(ctx context.Context, old, successor string, force bool, meta map[string]any) (bool, error) {
	status, err := t.Forget(ctx, old, "superseded by "+successor, nil, force)
	if status == "" {
		return false, err
	}
	if status != statusDeleted {
		return false, nil
	}
	if err := storage.SetSupersededBy(ctx, t.Tx, old, successor); err != nil {
		return false, err
	}
	if err := t.Record(ctx, old, EventSuperseded, "superseded by "+successor, meta); err != nil {
		return false, err
	}
	return true, nil
}

// statusDeleted is Forget's status for a memory it deleted.
const statusDeleted = "deleted"

// Unsupersede clears what supersession left on memory id when it is
// recovered (core's Recover): its successor link, and its attributes are
// live again.
func Unsupersede(ctx context.Context, q storage.Querier, id string) error {
	if err := storage.SetSupersededBy(ctx, q, id, ""); err != nil {
		return err
	}
	return storage.ReviveAttributes(ctx, q, id)
}

// Evolution is a memory's key, scope, reinforcement, attributes and place
// in a chain of supersession, as Get shows it.
type Evolution struct {
	Key             string   `json:"key,omitempty"`
	Scope           string   `json:"scope,omitempty"`
	Reinforced      int64    `json:"reinforced,omitempty"`
	LastConfirmedAt string   `json:"last_confirmed_at,omitempty"`
	SupersededBy    string   `json:"superseded_by,omitempty"`
	Supersedes      []string `json:"supersedes,omitempty"`
	// Attributes are what the linker read from the memory: entity,
	// aspect, attribute, value, kind, and whether a newer value
	// superseded it (attributes.go).
	Attributes []*storage.AttributeRow `json:"attributes,omitempty"`
}

// Of reads memory id's evolution; nil when it has none to show.
func Of(ctx context.Context, r storage.Querier, id string) (*Evolution, error) {
	e, err := storage.MemoryEvolution(ctx, r, id)
	if err != nil {
		return nil, err
	}
	scope, err := storage.MemoryScope(ctx, r, id)
	if err != nil {
		return nil, err
	}
	attrs, err := storage.MemoryAttributes(ctx, r, id)
	if err != nil {
		return nil, err
	}
	if e.Key == "" && scope == "" && e.Reinforced == 0 && e.SupersededBy == "" && len(e.Supersedes) == 0 && len(attrs) == 0 {
		return nil, nil
	}
	return &Evolution{Key: e.Key, Scope: scope, Reinforced: e.Reinforced, LastConfirmedAt: e.LastConfirmedAt,
		SupersededBy: e.SupersededBy, Supersedes: e.Supersedes, Attributes: attrs}, nil
}

// Base confidence by how a memory came to be (docs/design/evolution.md,
// "Confidence by source"): stated by a person or an agent on purpose,
// written by the system from a source (documents), observed in a session,
// or inferred from other memories.
const (
	ConfidenceStated   = 1.0
	ConfidenceSystem   = 0.9
	ConfidenceObserved = 0.7
	ConfidenceInferred = 0.5
)

// SourceConfidence is the confidence a memory of sourceType starts with
// when its writer gives none: "inferred", "observed" and "system" (and
// their synonyms) by their names, anything else stated.
func SourceConfidence(sourceType string) float64 {
	switch strings.ToLower(strings.TrimSpace(sourceType)) {
	case "inferred", "inference", "pipeline", "pipeline-v2", "extracted":
		return ConfidenceInferred
	case "observed", "observation", "session", "transcript", "session-end":
		return ConfidenceObserved
	case "system", "document", "documents", "connector":
		return ConfidenceSystem
	}
	return ConfidenceStated
}

// Evidence (docs/design/evolution.md, "Evidence"): how much a memory is to
// be believed now, as one factor of its base confidence, its
// reinforcement and its staleness.
const (
	reinforcementStep = 0.1 // each restatement adds 10%
	reinforcementMax  = 1.5 // up to 50%
	freshDays         = 30  // confirmed within 30 days: fresh
	staleDays         = 365 // confirmed a year ago or more: stalest
	stalestFactor     = 0.3 // the floor staleness decays to
)

// Reinforcement is min(1 + 0.1n, 1.5) for a memory stated n more times.
func Reinforcement(n int64) float64 {
	return min(1+reinforcementStep*float64(max(n, 0)), reinforcementMax)
}

// Staleness is 1 for a memory confirmed within 30 days, then falls
// linearly to 0.3 at a year since its last confirmation. Pinned memories
// never go stale.
func Staleness(lastConfirmed time.Time, pinned bool, now time.Time) float64 {
	days := now.Sub(lastConfirmed).Hours() / 24
	if pinned || days <= freshDays {
		return 1
	}
	if days >= staleDays {
		return stalestFactor
	}
	return 1 - (1-stalestFactor)*(days-freshDays)/(staleDays-freshDays)
}

// Evidence is confidence × reinforcement × staleness, in [0, 1.5].
func Evidence(confidence float64, reinforced int64, lastConfirmed time.Time, pinned bool, now time.Time) float64 {
	return clamp01(confidence) * Reinforcement(reinforced) * Staleness(lastConfirmed, pinned, now)
}

// Factor is a memory's evidence as a ranking multiplier:
// evidence^w, w being memory.evidence_weight (1 when w is 0). A memory
// reinforced n times was last confirmed at lastConfirmed, one never
// reinforced when it was created.
func Factor(w, confidence float64, reinforced int64, createdAt, lastConfirmed string, pinned bool, now time.Time) float64 {
	if w <= 0 {
		return 1
	}
	last, _ := storage.ParseTime(createdAt)
	if reinforced > 0 {
		if t, err := storage.ParseTime(lastConfirmed); err == nil {
			last = t
		}
	}
	ev := Evidence(confidence, reinforced, last, pinned, now)
	if ev <= 0 {
		return 0
	}
	return math.Pow(ev, w)
}
