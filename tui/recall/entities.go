package recall

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/tui/pane"
)

// The knowledge graph in the Recall pane: the open memory's entities (E
// moves into them, enter opens one) and the entity view, read-only: its
// relations with their direction, its neighbours and the memories that
// mention it. Enter on a neighbour opens that entity, on a memory that
// memory; esc goes back one step at a time.

// crumb is a view esc returns to: a memory's detail or an entity.
type crumb struct {
	mode      mode
	mem       *core.Memory
	history   []*core.HistoryEntry
	explain   *core.ScoreParts
	ents      []graph.Entity
	entsErr   error
	entSel    int
	entity    *graph.Detail
	entCursor int
	y         int
}

// entityMsg answers openEntity; from (when set) is the view it was opened
// from, kept for esc once it opens.
type entityMsg struct {
	detail *graph.Detail
	from   *crumb
	err    error
	nav    int // m.nav when it was asked for
}

func (m *Model) snapshot() *crumb {
	return &crumb{mode: m.mode, mem: m.mem, history: m.history, explain: m.explain, ents: m.ents, entsErr: m.entsErr,
		entSel: m.entSel, entity: m.entity, entCursor: m.entCursor, y: m.vp.YOffset()}
}

func (m *Model) restore(c *crumb) {
	m.mode, m.mem, m.history, m.explain, m.ents, m.entsErr = c.mode, c.mem, c.history, c.explain, c.ents, c.entsErr
	m.entSel, m.entity, m.entCursor = c.entSel, c.entity, c.entCursor
	m.vp.SetContent(m.content())
	m.vp.SetYOffset(c.y)
}

// back goes to the view before this one: true when there was one.
func (m *Model) popCrumb() bool {
	if len(m.trail) == 0 {
		return false
	}
	c := m.trail[len(m.trail)-1]
	m.trail = m.trail[:len(m.trail)-1]
	m.nav++
	m.restore(c)
	return true
}

// content is the viewport's text for the current mode.
func (m *Model) content() string {
	if m.mode == modeEntity {
		return m.entityContent()
	}
	return m.detailContent()
}

// openEntity loads entity id; from is pushed on the trail once it opens
// (nil: a reload of the entity shown).
func (m *Model) openEntity(id string, from *crumb) tea.Cmd {
	m.working = true
	b, nav := m.ctx.Client, m.nav
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		d, err := b.GraphEntity(ctx, id, graph.Query{Limit: pane.EntityLimit})
		return entityMsg{detail: d, from: from, err: err, nav: nav}
	}
}

func (m *Model) entityLoaded(msg entityMsg) tea.Cmd {
	m.working = false
	if msg.err != nil {
		return pane.Fail("open entity", msg.err)
	}
	if msg.nav != m.nav || (m.mode != modeDetail && m.mode != modeEntity) {
		return nil // the person went back meanwhile
	}
	if msg.from != nil {
		m.trail = append(m.trail, msg.from)
		m.entCursor = 0
	} else if m.mode != modeEntity || m.entity == nil || m.entity.Entity.ID != msg.detail.Entity.ID {
		return nil // a reload of an entity no longer shown
	}
	y := m.vp.YOffset()
	m.mode, m.entity = modeEntity, msg.detail
	m.entCursor = max(0, min(m.entCursor, len(m.entityRows())-1))
	m.vp.SetContent(m.entityContent())
	if msg.from != nil {
		m.vp.GotoTop()
	} else {
		m.vp.SetYOffset(y)
	}
	return nil
}

// entityRow is a selectable row of the entity view: a neighbour or a
// memory.
type entityRow struct {
	entity *graph.Entity
	memory *core.Memory
}

func (m *Model) entityRows() []entityRow {
	if m.entity == nil {
		return nil
	}
	var rows []entityRow
	for i := range m.entity.Neighbours {
		rows = append(rows, entityRow{entity: &m.entity.Neighbours[i]})
	}
	for _, mem := range m.entity.Memories {
		rows = append(rows, entityRow{memory: mem})
	}
	return rows
}

// entityKey handles a key in the entity view.
func (m *Model) entityKey(msg tea.KeyPressMsg) tea.Cmd {
	rows := m.entityRows()
	switch {
	case msg.String() == "esc":
		if !m.popCrumb() {
			m.nav++
			m.mode = modeList
		}
		return nil
	case key.Matches(msg, m.keys.OpenEntity):
		if m.entCursor >= len(rows) {
			return nil
		}
		r := rows[m.entCursor]
		from := m.snapshot()
		if r.entity != nil {
			return m.openEntity(r.entity.ID, from)
		}
		m.trail = append(m.trail, from)
		m.mem, m.history, m.explain, m.ents, m.entsErr, m.entSel = r.memory, nil, nil, nil, nil, -1
		m.mode = modeDetail
		m.vp.SetContent(m.detailContent())
		m.vp.GotoTop()
		m.working = true
		return m.openDetail(r.memory.ID, nil)
	case key.Matches(msg, m.listK.PageUp, m.listK.PageDown):
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(msg)
		return cmd
	case pane.IsMove(m.listK, msg):
		m.entCursor, _ = pane.MoveCursor(m.listK, msg, m.entCursor, len(rows), 1)
		m.entCursor = max(0, min(m.entCursor, len(rows)-1))
		m.vp.SetContent(m.entityContent())
		m.showLine(m.selLine)
	}
	return nil
}

// entitiesKey handles a key in the detail view while an entity is being
// picked (E); false hands the key to the detail view.
func (m *Model) entitiesKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case msg.String() == "esc":
		m.entSel = -1
	case key.Matches(msg, m.keys.OpenEntity):
		e := m.ents[m.entSel]
		return m.openEntity(e.ID, m.snapshot()), true
	case key.Matches(msg, m.keys.EntityMove):
		switch msg.String() {
		case "left", "h", "up", "k":
			m.entSel = max(0, m.entSel-1)
		default:
			m.entSel = min(len(m.ents)-1, m.entSel+1)
		}
	default:
		return nil, false
	}
	m.vp.SetContent(m.detailContent())
	if m.entSel >= 0 {
		m.showLine(m.selLine)
	}
	return nil, true
}

// pickEntities starts picking one of the open memory's entities (E).
func (m *Model) pickEntities() tea.Cmd {
	switch {
	case m.entsErr != nil:
		return pane.Fail("entities", m.entsErr)
	case len(m.ents) == 0:
		return pane.Notice("this memory names no entity")
	}
	m.entSel = 0
	m.vp.SetContent(m.detailContent())
	m.showLine(m.selLine)
	return nil
}

// showLine scrolls the viewport so content line i is on screen.
func (m *Model) showLine(i int) {
	h := m.vp.Height()
	switch {
	case i < m.vp.YOffset():
		m.vp.SetYOffset(i)
	case i >= m.vp.YOffset()+h:
		m.vp.SetYOffset(i - h + 1)
	}
}

// entityLabel is "name · type".
func entityLabel(e graph.Entity) string {
	if e.EntityType == "" || e.EntityType == "unknown" {
		return e.Name
	}
	return e.Name + " · " + e.EntityType
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// entitiesSection writes the open memory's entities into b on as few
// lines as it can: "Entities (n)" and "name · type" items flowing across
// width w, continuation lines indented. The picked one is highlighted and
// its line recorded in m.selLine.
func (m *Model) entitiesSection(b *strings.Builder, w int) {
	st := m.ctx.Styles
	head := fmt.Sprintf("Entities (%d)  ", len(m.ents))
	if m.entsErr != nil {
		head = "Entities  "
	}
	indent := strings.Repeat(" ", len([]rune(head)))
	b.WriteString("\n" + st.Heading.Render(strings.TrimRight(head, " ")) + "  ")
	switch {
	case m.entsErr != nil:
		b.WriteString(st.Error.Render(pane.Truncate("unavailable: "+m.entsErr.Error(), w-len(indent))) + "\n")
		return
	case len(m.ents) == 0 && m.ents == nil && m.working:
		b.WriteString(st.Faint.Render("loading…") + "\n")
		return
	case len(m.ents) == 0:
		b.WriteString(st.Faint.Render(pane.Truncate("none: the linker found no names in it", w-len(indent))) + "\n")
		return
	}
	const gap = "   "
	room := max(10, w-len(indent))
	lineW := 0
	for i, e := range m.ents {
		label := pane.Truncate(entityLabel(e), room)
		lw := len([]rune(label))
		if lineW > 0 && lineW+len(gap)+lw > room {
			b.WriteString("\n" + indent)
			lineW = 0
		}
		if lineW > 0 {
			b.WriteString(gap)
			lineW += len(gap)
		}
		if i == m.entSel {
			m.selLine = strings.Count(b.String(), "\n")
			b.WriteString(st.Selected.Render(label))
		} else {
			b.WriteString(st.Accent.Render(label))
		}
		lineW += lw
	}
	b.WriteString("\n")
}

// entityContent is the entity view: relations, neighbours, memories.
func (m *Model) entityContent() string {
	d := m.entity
	if d == nil {
		return ""
	}
	st := m.ctx.Styles
	w := max(20, m.width)
	var b strings.Builder
	section := func(name string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(st.Heading.Render(name) + "\n")
	}
	section(fmt.Sprintf("Relations (%d)", len(d.Relations)))
	if len(d.Relations) == 0 {
		b.WriteString(st.Faint.Render("none yet: relations come from the extraction pipeline") + "\n")
	}
	for _, r := range d.Relations {
		arrow := "→"
		if r.Direction == "in" {
			arrow = "←"
		}
		left := "  " + arrow + " " + pane.Pad(r.RelationType, 14) + " "
		right := fmt.Sprintf("  ×%d %.2f", r.Mentions, r.Confidence)
		mid := pane.Pad(entityLabel(r.Other), max(5, w-len([]rune(left))-len([]rune(right))))
		b.WriteString(st.Text.Render(left+mid) + st.Faint.Render(right) + "\n")
	}
	row := 0
	mark := func(text string, style func(string) string) {
		marker := "  "
		if row == m.entCursor {
			marker = "› "
			m.selLine = strings.Count(b.String(), "\n")
			b.WriteString(st.Selected.Render(pane.Pad(marker+text, w)) + "\n")
		} else {
			b.WriteString(style(marker+text) + "\n")
		}
		row++
	}
	section(fmt.Sprintf("Neighbours (%d)", len(d.Neighbours)))
	if len(d.Neighbours) == 0 {
		b.WriteString(st.Faint.Render("none") + "\n")
	}
	for _, e := range d.Neighbours {
		mark(pane.Truncate(entityLabel(e)+" · "+plural(e.Mentions, "memory", "memories"), w-2), func(s string) string { return st.Text.Render(s) })
	}
	section(fmt.Sprintf("Memories that mention it (%d)", len(d.Memories)))
	if len(d.Memories) == 0 {
		b.WriteString(st.Faint.Render("none live") + "\n")
	}
	for _, mem := range d.Memories {
		text := pane.Pad(mem.Type, colType[0]) + " " + pane.Pad(pane.Age(m.ctx.Now(), mem.CreatedAt), colAge) + " "
		text += pane.OneLine(mem.Content, max(8, w-2-len([]rune(text))))
		mark(text, func(s string) string { return st.Text.Render(s) })
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// entityTitle is the entity view's heading.
func (m *Model) entityTitle() string {
	if m.entity == nil {
		return "entity"
	}
	e := m.entity.Entity
	return "entity · " + entityLabel(e) + " · named by " + plural(e.Mentions, "memory", "memories")
}
