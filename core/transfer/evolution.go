package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// What export and import carry of a memory's evolution is evolution's
// (evolution.Carried, core/evolution/carried.go): an export line holds it
// under "evolution", and an import writes it back as it was, retiring and
// reinforcing nothing by itself. Here are the parts that need the whole
// file or the store: an export includes superseded memories (both ends of
// every supersession travel), links to other memories are checked against
// the file and the store before anything is written, and a successor that
// was not written because a live memory held its content hands its links
// to that memory.

// ExportRecord is one line of an export: the memory as the API shows it
// and its evolution. (Its Evolution shadows the memory's own, which
// Export leaves nil.)
type ExportRecord struct {
	*core.Memory
	Evolution *evolution.Carried `json:"evolution,omitempty"`
}

// exportPage is how many memories Export reads the evolution of at once.
const exportPage = 500

// exportEach calls fn for every memory matching f with its evolution,
// oldest first: deleted memories only when f asks for them, superseded
// ones always.
func (t *Transfer) exportEach(ctx context.Context, f storage.MemoryFilter, fn func(*ExportRecord) error) error {
	r := t.db.Reader()
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
			if err := fn(&ExportRecord{Memory: core.ViewOf(m), Evolution: evolution.Carry(m, ks[0], ks[1], attrs[m.ID])}); err != nil {
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

// CheckCarried checks (and normalizes) one import line's evolution
// against its memory, as far as the line alone tells; the error names the
// field. Links to other memories are checked with the whole file
// (checkEvolution).
func CheckCarried(m *core.Memory, c *evolution.Carried) *core.Error {
	e := evolution.CheckCarried(evolution.CarriedMemory{ID: m.ID, Project: m.Project, Who: m.Who, SourceType: m.SourceType, IsDeleted: m.IsDeleted}, c)
	if e != nil {
		return core.AsError(e)
	}
	return nil
}

// checkEvolution checks what the lines carry against the whole file and
// the store, before anything is written: a key on content remember would
// chunk, a successor named that is neither in the file nor in the store,
// and a cycle of supersession. It marks the lines other lines name as
// successor (a duplicate of one is repointed, repointDeduped).
func (t *Transfer) checkEvolution(ctx context.Context, lines []ImportLine) *core.Error {
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
		if c.Key != "" && text.CharCount(l.Memory.Content) > t.cfg.Guardrails.MaxContentChars {
			return lineError(l.Line, core.Invalid("evolution.key", "a keyed fact must be short: content over guardrails.max_content_chars is chunked, and a key names one value"))
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
		known, err := storage.ExistingIDs(ctx, t.db.Reader(), ids)
		if err != nil {
			return core.AsError(err)
		}
		for _, d := range outside {
			if !known[d.dst] {
				return lineError(d.line, core.Invalid(d.field, "%s names memory %q, which is neither in the file nor in the store", d.field, d.dst))
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
				return lineError(lines[k].Line, core.Invalid("evolution.superseded_by", "a cycle of supersession: memory %q is its own successor's predecessor", cur))
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

// repointDeduped runs after an import's batches: a successor named in the
// file that was not written because a live memory already held its
// content hands its links to that memory, so no link points nowhere.
func (t *Transfer) repointDeduped(ctx context.Context, lines []ImportLine, actor core.Actor) error {
	var ids []string
	for _, l := range lines {
		if l.target && !l.Memory.IsDeleted {
			ids = append(ids, l.Memory.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	written, err := storage.ExistingIDs(ctx, t.db.Reader(), ids)
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
	return t.db.WriteTx(ctx, func(tx storage.Tx) error {
		et := t.mem.EvolutionTx(tx, actor)
		for _, l := range lost {
			twin, err := storage.LiveIDByHash(ctx, tx, text.NormalizeContent(l.Memory.Content).Hash, l.Memory.Project)
			if err != nil {
				return err
			}
			if twin == "" && l.Memory.IdempotencyKey != "" {
				m, err := storage.FindLiveByIdempotencyKey(ctx, tx, l.Memory.IdempotencyKey)
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
			if err := et.Repoint(ctx, l.Memory.ID, twin); err != nil {
				return err
			}
		}
		return nil
	})
}
