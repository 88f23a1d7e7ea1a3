package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/core/entities"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// What export and import carry of a memory's evolution (core/evolve.go,
// core/attributes.go). An export line holds, under "evolution", the
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

// ExportRecord is one line of an export: the memory as the API shows it
// and its evolution. (Its Evolution shadows the memory's own, which
// Export leaves nil.)
type ExportRecord struct {
	*Memory
	Evolution *Carried `json:"evolution,omitempty"`
}

// exportPage is how many memories Export reads the evolution of at once.
const exportPage = 500

// exportEach calls fn for every memory matching f with its evolution,
// oldest first: deleted memories only when f asks for them, superseded
// ones always.
func (s *Service) exportEach(ctx context.Context, f storage.MemoryFilter, fn func(*ExportRecord) error) error {
	r := s.db.Reader()
	forgotten := f.IncludeDeleted
	f.IncludeDeleted = true // superseded memories travel with their successors
	page := make([]*storage.Memory, 0, exportPage)
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		ids := make([]string, len(page))
		for i, m := range page {
			ids[i] = m.ID
		}
		links, err := storage.KeysAndSuccessors(ctx, r, ids)
		if err != nil {
			return err
		}
		attrs, err := storage.AttributesOfMemories(ctx, r, ids)
		if err != nil {
			return err
		}
		for _, m := range page {
			ks := links[m.ID]
			if m.IsDeleted && ks[1] == "" && !forgotten {
				continue
			}
			if err := fn(&ExportRecord{Memory: viewOf(m), Evolution: carriedOf(m, ks[0], ks[1], attrs[m.ID])}); err != nil {
				return err
			}
		}
		page = page[:0]
		return nil
	}
	err := storage.EachMemory(ctx, r, f, func(m *storage.Memory) error {
		page = append(page, m)
		if len(page) == exportPage {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// carriedOf is m's evolution as an export line carries it; nil when it
// has none.
func carriedOf(m *storage.Memory, key, successor string, attrs []*storage.AttributeRow) *Carried {
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

// CheckCarried checks (and normalizes) one import line's evolution
// against its memory, as far as the line alone tells; the error names the
// field. Links to other memories are checked with the whole file
// (checkImportEvolution).
func CheckCarried(m *Memory, c *Carried) *Error {
	if c == nil {
		return nil
	}
	scope, e := NormalizeScope(c.Scope)
	if e != nil {
		return Invalid("evolution.scope", "evolution.scope must be project, user or agent")
	}
	c.Scope = scope
	if scope != "" && m.Project != "" {
		return Invalid("project", "a %s memory holds no project (it follows its owner into every project)", scope)
	}
	if scope == ScopeAgent && m.Who == "" {
		return Invalid("who", "an agent memory needs who: the agent it belongs to")
	}
	key, e := NormalizeKey(c.Key)
	if e != nil {
		return Invalid("evolution.key", "evolution.%s", e.Message)
	}
	c.Key = key
	if key != "" && m.SourceType == "chunk" {
		return Invalid("evolution.key", "a chunk of a long memory cannot hold a key: a key names one short value")
	}
	if c.Reinforced < 0 {
		return Invalid("evolution.reinforced", "evolution.reinforced must not be negative")
	}
	if c.LastConfirmedAt != "" {
		if _, err := storage.ParseTime(c.LastConfirmedAt); err != nil {
			return Invalid("evolution.last_confirmed_at", "evolution.last_confirmed_at must be an RFC 3339 time")
		}
	}
	if c.SupersededBy != "" {
		switch {
		case !m.IsDeleted:
			return Invalid("evolution.superseded_by", "a superseded memory is retired: is_deleted must be true when evolution.superseded_by is set")
		case c.SupersededBy == m.ID:
			return Invalid("evolution.superseded_by", "a memory cannot supersede itself (a cycle of supersession)")
		}
	}
	if len(c.Attributes) > maxCarriedAttributes {
		return Invalid("evolution.attributes", "evolution.attributes holds %d attributes; at most %d", len(c.Attributes), maxCarriedAttributes)
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
				return Invalid(field(f.name), "%s is not valid UTF-8", field(f.name))
			case f.required && text.NormalizeContent(f.v).Storage == "":
				return Invalid(field(f.name), "%s is required", field(f.name))
			case text.CharCount(f.v) > maxAttributeField:
				return Invalid(field(f.name), "%s is over %d characters", field(f.name), maxAttributeField)
			}
		}
		switch a.Kind {
		case "":
			a.Kind = entities.KindAttribute
		case entities.KindAttribute, entities.KindConstraint:
		default:
			return Invalid(field("kind"), "%s must be attribute or constraint", field("kind"))
		}
		switch a.Status {
		case "", "live":
			a.Status = "live"
			if a.SupersededBy != "" {
				return Invalid(field("superseded_by"), "a live attribute has no superseded_by")
			}
		case "superseded":
			if a.SupersededBy == "" {
				return Invalid(field("superseded_by"), "a superseded attribute names the memory that superseded it")
			}
			if a.SupersededBy == m.ID {
				return Invalid(field("superseded_by"), "a memory cannot supersede its own attribute")
			}
		default:
			return Invalid(field("status"), "%s must be live or superseded", field("status"))
		}
		if a.CreatedAt != "" {
			if _, err := storage.ParseTime(a.CreatedAt); err != nil {
				return Invalid(field("created_at"), "%s must be an RFC 3339 time", field("created_at"))
			}
		}
	}
	return nil
}

// checkImportEvolution checks what the lines carry against the whole file
// and the store, before anything is written: a key on content remember
// would chunk, a successor named that is neither in the file nor in the
// store, and a cycle of supersession. It marks the lines other lines name
// as successor (a duplicate of one is repointed, repointDeduped).
func (s *Service) checkImportEvolution(ctx context.Context, lines []ImportLine) *Error {
	first := map[string]int{} // id → its first line's index
	carried := false
	for i := range lines {
		if id := lines[i].Memory.ID; id != "" {
			if _, ok := first[id]; !ok {
				first[id] = i
			}
		}
		carried = carried || lines[i].Evolution != nil
	}
	if !carried {
		return nil
	}
	type link struct {
		line       int
		field, dst string
	}
	var outside []link
	for i := range lines {
		l := &lines[i]
		c := l.Evolution
		if c == nil {
			continue
		}
		if c.Key != "" && text.CharCount(l.Memory.Content) > s.cfg.Guardrails.MaxContentChars {
			return lineErrorOf(l.Line, Invalid("evolution.key", "a keyed fact must be short: content over guardrails.max_content_chars is chunked, and a key names one value"))
		}
		dsts := []link{{l.Line, "evolution.superseded_by", c.SupersededBy}}
		for j, a := range c.Attributes {
			dsts = append(dsts, link{l.Line, fmt.Sprintf("evolution.attributes[%d].superseded_by", j), a.SupersededBy})
		}
		for _, d := range dsts {
			if d.dst == "" {
				continue
			}
			if k, ok := first[d.dst]; ok {
				lines[k].target = true
			} else {
				outside = append(outside, d)
			}
		}
	}
	if len(outside) > 0 {
		ids := make([]string, len(outside))
		for i, d := range outside {
			ids[i] = d.dst
		}
		known, err := storage.ExistingIDs(ctx, s.db.Reader(), ids)
		if err != nil {
			return AsError(err)
		}
		for _, d := range outside {
			if !known[d.dst] {
				return lineErrorOf(d.line, Invalid(d.field, "%s names memory %q, which is neither in the file nor in the store", d.field, d.dst))
			}
		}
	}
	// A chain of successors within the file must end: follow each one,
	// marking what is done.
	const (
		walking = 1
		done    = 2
	)
	state := map[string]int8{}
	for i := range lines {
		id := lines[i].Memory.ID
		if id == "" || first[id] != i || state[id] == done {
			continue
		}
		var path []string
		for cur := id; cur != ""; {
			k, ok := first[cur]
			if !ok || state[cur] == done {
				break
			}
			if state[cur] == walking {
				return lineErrorOf(lines[k].Line, Invalid("evolution.superseded_by", "a cycle of supersession: memory %q is its own successor's predecessor", cur))
			}
			state[cur] = walking
			path = append(path, cur)
			cur = ""
			if c := lines[k].Evolution; c != nil {
				cur = c.SupersededBy
			}
		}
		for _, p := range path {
			state[p] = done
		}
	}
	return nil
}

// lineErrorOf names line n in e, as importGuardrails does.
func lineErrorOf(n int, e *Error) *Error {
	extra := map[string]any{"line": n}
	for k, v := range e.Extra {
		extra[k] = v
	}
	return &Error{Code: e.Code, Message: fmt.Sprintf("line %d: %s", n, e.Message), Extra: extra}
}

// writeImportEvolution writes, in an import's write transaction, what the
// records written carry: their scope, key, successor and reinforcement
// (one statement each, only for records that carry them) and their
// attributes.
func (s *Service) writeImportEvolution(ctx context.Context, tx *storage.Tx, kept []importRecord) error {
	now := s.Timestamp()
	aspects := map[[2]string]string{}
	aspect := func(entity, name string) (string, error) {
		if name == "" {
			return "", nil
		}
		k := [2]string{entity, name}
		if id, ok := aspects[k]; ok {
			return id, nil
		}
		id, err := storage.UpsertAspect(ctx, tx, NewID(), entity, name, now)
		aspects[k] = id
		return id, err
	}
	for _, r := range kept {
		m, c := r.m, r.ev
		if c == nil {
			continue
		}
		if c.Scope != "" || c.Key != "" || c.SupersededBy != "" || c.Reinforced != 0 || c.LastConfirmedAt != "" {
			if err := storage.SetEvolution(ctx, tx, m.ID, c.Scope, c.Key, c.SupersededBy, c.Reinforced, c.LastConfirmedAt); err != nil {
				return fmt.Errorf("line %d: evolution: %w", r.line, err)
			}
		}
		slot := attributeSlot(m.Project, c.Scope, m.Who)
		for _, a := range c.Attributes {
			aid, err := aspect(a.Entity, a.Aspect)
			if err == nil {
				err = storage.InsertAttributeAs(ctx, tx, &storage.AttributeRow{ID: NewID(), MemoryID: m.ID, Slot: slot, Entity: a.Entity,
					Name: a.Name, Value: a.Value, Kind: a.Kind, Status: a.Status, SupersededBy: a.SupersededBy,
					CreatedAt: OrDefault(a.CreatedAt, m.CreatedAt)}, aid)
			}
			if err != nil {
				return fmt.Errorf("line %d: attribute: %w", r.line, err)
			}
		}
	}
	return nil
}

// repointDeduped runs after an import's batches: a successor named in the
// file that was not written because a live memory already held its
// content hands its links to that memory, so no link points nowhere.
func (s *Service) repointDeduped(ctx context.Context, lines []ImportLine) error {
	var ids []string
	for _, l := range lines {
		if l.target && !l.Memory.IsDeleted {
			ids = append(ids, l.Memory.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	written, err := storage.ExistingIDs(ctx, s.db.Reader(), ids)
	if err != nil {
		return err
	}
	var lost []*ImportLine
	for i := range lines {
		if l := &lines[i]; l.target && !l.Memory.IsDeleted && !written[l.Memory.ID] {
			lost = append(lost, l)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	return s.db.WriteTx(ctx, func(tx *storage.Tx) error {
		for _, l := range lost {
			twin, err := storage.LiveIDByHash(ctx, tx, text.NormalizeContent(l.Memory.Content).Hash, l.Memory.Project)
			if err != nil {
				return err
			}
			if twin == "" && l.Memory.IdempotencyKey != "" {
				m, err := findByIdempotencyKey(ctx, tx, l.Memory.IdempotencyKey)
				if err != nil && !errors.Is(err, storage.ErrNotFound) {
					return err
				}
				if m != nil {
					twin = m.ID
				}
			}
			if twin == "" {
				continue // nothing holds it: the link stays, and recover still works
			}
			if err := storage.RepointSuccessor(ctx, tx, l.Memory.ID, twin); err != nil {
				return err
			}
		}
		return nil
	})
}
