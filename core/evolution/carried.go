package evolution

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// What export and import carry of a memory's evolution (evolve.go,
// attributes.go). An export line holds, under "evolution", the
// memory's scope, key, reinforcement, last confirmation, successor and the
// attributes read from it (live and superseded, with what superseded
// them), in the same names GET /api/memory/{id} shows them. An import
// writes them back as they were: it restores a store's state, it does not
// replay the statements, so it retires nothing and reinforces nothing by
// itself.
//
// Superseded memories are part of a store's state (they are kept for good
// and restorable), so an export includes them even without
// include_deleted: both ends of every supersession travel, and the
// imported store still lists the successor's predecessors and can restore
// them.
//
// An old export (no "evolution") imports with the defaults: project
// scope, no key, no reinforcement, no attributes. Attributes are carried,
// not read again on import: reading them costs about half of an import's
// CPU on real text (mix100k: 7 readings in 100,000 lines), a carried
// reading is the one supersession acted on (a newer reader could read
// differently and disagree with the supersession state the file holds),
// and remember is the one place that reads statements.

// Carried is what an export line carries of a memory's evolution.
type Carried struct {
	Scope           string             `json:"scope,omitempty"`
	Key             string             `json:"key,omitempty"`
	Reinforced      int64              `json:"reinforced,omitempty"`
	LastConfirmedAt string             `json:"last_confirmed_at,omitempty"`
	SupersededBy    string             `json:"superseded_by,omitempty"`
	Attributes      []CarriedAttribute `json:"attributes,omitempty"`
}

// CarriedAttribute is one attribute of an export line.
type CarriedAttribute struct {
	Entity       string `json:"entity"`
	Aspect       string `json:"aspect,omitempty"`
	Name         string `json:"name"`
	Value        string `json:"value"`
	Kind         string `json:"kind"`
	Status       string `json:"status"`
	SupersededBy string `json:"superseded_by,omitempty"`
	CreatedAt    string `json:"created_at,omitempty"`
}

// Carry is m's evolution as an export line carries it, from its key, its
// successor and its attributes; nil when it has none.
func Carry(m *storage.Memory, key, successor string, attrs []*storage.AttributeRow) *Carried {
	c := &Carried{Scope: m.Scope, Key: key, Reinforced: m.ReinforcedCount, SupersededBy: successor}
	if m.ReinforcedCount > 0 {
		c.LastConfirmedAt = m.LastConfirmedAt
	}
	for _, a := range attrs {
		c.Attributes = append(c.Attributes, CarriedAttribute{Entity: a.Entity, Aspect: a.Aspect, Name: a.Name, Value: a.Value,
			Kind: a.Kind, Status: a.Status, SupersededBy: a.SupersededBy, CreatedAt: a.CreatedAt})
	}
	if c.Scope == "" && c.Key == "" && c.Reinforced == 0 && c.SupersededBy == "" && len(c.Attributes) == 0 {
		return nil
	}
	return c
}

// Bounds of what an import line may carry.
const (
	maxCarriedAttributes = 64
	maxAttributeField    = 512
)

// CarriedMemory is what CheckCarried needs to know of an import line's
// memory.
type CarriedMemory struct {
	ID, Project, Who, SourceType string
	IsDeleted                    bool
}

// CheckCarried checks (and normalizes) one import line's evolution
// against its memory, as far as the line alone tells; the error names the
// field. Links to other memories are checked with the whole file (by the
// import).
func CheckCarried(m CarriedMemory, c *Carried) *FieldError {
	if c == nil {
		return nil
	}
	scope, e := NormalizeScope(c.Scope)
	if e != nil {
		return invalid("evolution.scope", "evolution.scope must be project, user or agent")
	}
	c.Scope = scope
	if scope != "" && m.Project != "" {
		return invalid("project", "a %s memory holds no project (it follows its owner into every project)", scope)
	}
	if scope == ScopeAgent && m.Who == "" {
		return invalid("who", "an agent memory needs who: the agent it belongs to")
	}
	key, e := NormalizeKey(c.Key)
	if e != nil {
		return invalid("evolution.key", "evolution.%s", e.Message)
	}
	c.Key = key
	if key != "" && m.SourceType == "chunk" {
		return invalid("evolution.key", "a chunk of a long memory cannot hold a key: a key names one short value")
	}
	if c.Reinforced < 0 {
		return invalid("evolution.reinforced", "evolution.reinforced must not be negative")
	}
	if c.LastConfirmedAt != "" {
		if _, err := storage.ParseTime(c.LastConfirmedAt); err != nil {
			return invalid("evolution.last_confirmed_at", "evolution.last_confirmed_at must be an RFC 3339 time")
		}
	}
	if c.SupersededBy != "" {
		switch {
		case !m.IsDeleted:
			return invalid("evolution.superseded_by", "a superseded memory is retired: is_deleted must be true when evolution.superseded_by is set")
		case c.SupersededBy == m.ID:
			return invalid("evolution.superseded_by", "a memory cannot supersede itself (a cycle of supersession)")
		}
	}
	if len(c.Attributes) > maxCarriedAttributes {
		return invalid("evolution.attributes", "evolution.attributes holds %d attributes; at most %d", len(c.Attributes), maxCarriedAttributes)
	}
	for i := range c.Attributes {
		a := &c.Attributes[i]
		field := func(name string) string { return fmt.Sprintf("evolution.attributes[%d].%s", i, name) }
		for _, f := range [...]struct {
			name, v  string
			required bool
		}{{"entity", a.Entity, true}, {"aspect", a.Aspect, false}, {"name", a.Name, true}, {"value", a.Value, true}} {
			switch {
			case !text.ValidUTF8(f.v):
				return invalid(field(f.name), "%s is not valid UTF-8", field(f.name))
			case f.required && text.NormalizeContent(f.v).Storage == "":
				return invalid(field(f.name), "%s is required", field(f.name))
			case text.CharCount(f.v) > maxAttributeField:
				return invalid(field(f.name), "%s is over %d characters", field(f.name), maxAttributeField)
			}
		}
		switch a.Kind {
		case "":
			a.Kind = entities.KindAttribute
		case entities.KindAttribute, entities.KindConstraint:
		default:
			return invalid(field("kind"), "%s must be attribute or constraint", field("kind"))
		}
		switch a.Status {
		case "", "live":
			a.Status = "live"
			if a.SupersededBy != "" {
				return invalid(field("superseded_by"), "a live attribute has no superseded_by")
			}
		case "superseded":
			if a.SupersededBy == "" {
				return invalid(field("superseded_by"), "a superseded attribute names the memory that superseded it")
			}
			if a.SupersededBy == m.ID {
				return invalid(field("superseded_by"), "a memory cannot supersede its own attribute")
			}
		default:
			return invalid(field("status"), "%s must be live or superseded", field("status"))
		}
		if a.CreatedAt != "" {
			if _, err := storage.ParseTime(a.CreatedAt); err != nil {
				return invalid(field("created_at"), "%s must be an RFC 3339 time", field("created_at"))
			}
		}
	}
	return nil
}

// CarriedWriter writes, in an import's write transaction, what the
// memories written carry: their scope, key, successor and reinforcement
// (one statement each, only for memories that carry them) and their
// attributes. It upserts each aspect once per transaction.
type CarriedWriter struct {
	t       Tx
	aspects map[[2]string]string
}

// CarriedWriter returns a writer of carried evolution in t.
func (t Tx) CarriedWriter() *CarriedWriter {
	return &CarriedWriter{t: t, aspects: map[[2]string]string{}}
}

func (w *CarriedWriter) aspect(ctx context.Context, entity, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	k := [2]string{entity, name}
	if id, ok := w.aspects[k]; ok {
		return id, nil
	}
	id, err := storage.UpsertAspect(ctx, w.t.Tx, newID(), entity, name, w.t.Stamp)
	w.aspects[k] = id
	return id, err
}

// Write writes what c carries for memory m, just written (nothing when c
// is nil).
func (w *CarriedWriter) Write(ctx context.Context, m *storage.Memory, c *Carried) error {
	if c == nil {
		return nil
	}
	if c.Scope != "" || c.Key != "" || c.SupersededBy != "" || c.Reinforced != 0 || c.LastConfirmedAt != "" {
		if err := storage.SetEvolution(ctx, w.t.Tx, m.ID, c.Scope, c.Key, c.SupersededBy, c.Reinforced, c.LastConfirmedAt); err != nil {
			return fmt.Errorf("evolution: %w", err)
		}
	}
	slot := Slot(m.Project, c.Scope, m.Who)
	for _, a := range c.Attributes {
		aid, err := w.aspect(ctx, a.Entity, a.Aspect)
		if err == nil {
			created := a.CreatedAt
			if strings.TrimSpace(created) == "" {
				created = m.CreatedAt
			}
			err = storage.InsertAttributeAs(ctx, w.t.Tx, &storage.AttributeRow{ID: newID(), MemoryID: m.ID, Slot: slot, Entity: a.Entity,
				Name: a.Name, Value: a.Value, Kind: a.Kind, Status: a.Status, SupersededBy: a.SupersededBy,
				CreatedAt: created}, aid)
		}
		if err != nil {
			return fmt.Errorf("attribute: %w", err)
		}
	}
	return nil
}

// Repoint makes the memories and attributes that memory from superseded
// point at memory to instead: from was not written by an import because
// to, a live memory, already held its content.
func (t Tx) Repoint(ctx context.Context, from, to string) error {
	return storage.RepointSuccessor(ctx, t.Tx, from, to)
}
