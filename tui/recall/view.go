package recall

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/tui/pane"
)

// View implements pane.Pane.
func (m *Model) View() string {
	var out string
	switch m.mode {
	case modeDetail:
		out = m.detailView()
	case modeEntity:
		out = m.entityView()
	case modeForm:
		out = m.form.view()
	case modeReason:
		out = m.form.view()
		out = lipgloss.NewStyle().MaxHeight(m.height-2).Render(out) + "\n" +
			m.ctx.Styles.Heading.Render("Why this change? ") + m.ctx.Styles.Faint.Render("(recorded in history; enter saves, esc returns to the form)") + "\n" +
			m.reason.View()
	case modeConfirm:
		out = m.listView(m.height-3) + "\n" + m.confirmView()
	default:
		out = m.listView(m.height)
	}
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

func (m *Model) confirmView() string {
	st, mem := m.ctx.Styles, m.confirm
	if mem == nil {
		pinned := 0
		for _, it := range m.bulk {
			if it.Pinned {
				pinned++
			}
		}
		q := fmt.Sprintf("Delete the %d marked memories?", len(m.bulk))
		if pinned > 0 {
			q += fmt.Sprintf(" %d pinned.", pinned)
		}
		return st.Warning.Render(pane.Truncate(q, m.width)) + "\n" + m.reason.View() + "\n" +
			st.Faint.Render(pane.Truncate("enter deletes them (ctrl+z undoes), esc cancels", m.width))
	}
	q := fmt.Sprintf("Delete %s “%s”?", pane.ShortID(mem.ID), pane.OneLine(mem.Content, max(10, m.width-40)))
	if mem.Pinned {
		q += " It is pinned."
	}
	return st.Warning.Render(q) + "\n" + m.reason.View() + "\n" +
		st.Faint.Render("enter deletes (recoverable with u under D), esc cancels")
}

// Column widths of the result list: the widest each column takes, then
// the narrower ones it shrinks to before it gives way.
const (
	colScore = 5
	colImp   = 4
	colAge   = 5
	colPin   = 1
	// minContent is the most room the memory's text is sure of: the
	// columns give way, lesser ones first, to keep it (half the width on
	// a narrow terminal).
	minContent = 32
)

var (
	colType          = []int{10, 5}
	colTags          = []int{16, 10}
	colTagsNarrow    = []int{10}
	colProject       = []int{12, 8}
	colProjectNarrow = []int{8, 6}
)

// columns are the widths of the optional columns the list shows now (0:
// not shown): the score only when some row has one (a recent list has
// none); the project only when some row has one and the list spans
// projects, where it ranks above every column but the score, since the
// same words mean different things in different projects.
type columns struct {
	score, typeW, imp, pin, age, projectW, tagW int
}

func (m *Model) columns() columns {
	tags, project := colTags, colProject
	if m.width < 100 {
		tags, project = colTagsNarrow, colProjectNarrow
	}
	scored, anyProject := false, false
	for _, it := range m.list.Rows() {
		scored = scored || it.Scored
		anyProject = anyProject || it.Project != ""
	}
	score := []int{colScore}
	if !scored {
		score = nil
	}
	if !anyProject || !m.allProjects() {
		project = nil
	}
	// Ranks: the pin and the score, the project, then type, age,
	// importance and tags.
	w := pane.Fit(m.width-2, pane.MinText(m.width-2, minContent), []pane.Column{
		{Widths: score, Rank: 1}, {Widths: colType, Rank: 3}, {Widths: []int{colImp}, Rank: 5}, {Widths: []int{colPin}, Rank: 0},
		{Widths: []int{colAge}, Rank: 4}, {Widths: project, Rank: 2}, {Widths: tags, Rank: 6},
	})
	return columns{score: w[0], typeW: w[1], imp: w[2], pin: w[3], age: w[4], projectW: w[5], tagW: w[6]}
}

// allProjects reports whether the list spans projects (no project token
// in the box, P off).
func (m *Model) allProjects() bool {
	q, _ := ParseQuery(m.input.Value(), m.ctx.Now())
	return q.Filter.Project == "" && !m.onlyProject
}

func (m *Model) listView(height int) string {
	st := m.ctx.Styles
	var b strings.Builder
	b.WriteString(m.input.View())
	b.WriteString("\n")
	// The header line says what the list is: its method, count and filters.
	var head string
	switch {
	case m.filterErr != "":
		head = st.Error.Render(pane.Truncate(m.filterErr, m.width))
	default:
		what := m.method
		switch what {
		case "recent":
			what = "recent memories"
		case "deleted":
			what = "deleted memories (D to go back, u recovers)"
		case "":
			what = "…"
		default:
			what += " recall"
		}
		n := pane.Count(m.list.Len())
		if m.paged {
			n = m.list.Head("", "") // "1,234 · 12 of 1,234"
		}
		if k := m.list.MarkCount(); k > 0 {
			what = fmt.Sprintf("%d marked (d deletes, esc unmarks) · %s", k, what)
		}
		head = pane.ListHead(st, fmt.Sprintf("%s · %s · %s", n, what, m.projectScope()), m.list.NewAboveText(), m.width)
	}
	b.WriteString(head)
	rows := max(0, height-2)
	if m.list.Len() == 0 {
		msg := "No memories yet. Press n to add one, or let an agent remember something."
		if m.input.Value() != "" || m.showDeleted {
			msg = "Nothing matches."
		}
		if m.input.Value() != "" && !m.showDeleted {
			msg = "No memory is about this: none shares a word with it."
			if m.belowFloor > 0 {
				msg = fmt.Sprintf("No memory is about this: none shares a word with it, and the %d nearest in meaning are no closer than unrelated text.", m.belowFloor)
			}
		}
		if m.method == "" {
			msg = ""
		}
		b.WriteString("\n" + st.Faint.Render(pane.Truncate(msg, m.width)))
		return b.String()
	}
	cols := m.columns()
	from, to := m.list.Visible()
	for i := from; i < to && i < from+rows; i++ {
		b.WriteString("\n")
		b.WriteString(m.row(m.list.Row(i), i == m.list.Cursor(), cols))
	}
	return b.String()
}

// projectScope says which projects the list covers.
func (m *Model) projectScope() string {
	q, _ := ParseQuery(m.input.Value(), m.ctx.Now())
	switch {
	case q.Filter.Project != "":
		return "project " + q.Filter.Project
	case m.onlyProject:
		return "project " + m.ctx.Project + " (P: all)"
	case m.ctx.Project != "":
		return "all projects (P: " + pane.ShortProject(m.ctx.Project) + ")"
	}
	return "all projects"
}

func (m *Model) row(it item, selected bool, cols columns) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	if m.list.Marked(it) {
		marker = marker[:len(marker)-1] + "●"
		if selected {
			marker = "›●"
		}
	}
	line := marker
	col := func(w int, v string) {
		if w > 0 {
			line += pane.Pad(v, w) + " "
		}
	}
	if cols.score > 0 {
		score := ""
		if it.Scored {
			score = fmt.Sprintf("%5.3f", it.Score)
			if it.Score >= 10 {
				score = fmt.Sprintf("%5.1f", it.Score)
			}
		}
		col(cols.score, score)
	}
	pin := " "
	if it.Pinned {
		pin = "★"
	}
	if it.Deleted {
		pin = "✗"
	}
	col(cols.typeW, it.Type)
	col(cols.imp, fmtImportance(it.Importance))
	col(cols.pin, pin)
	col(cols.age, pane.Age(m.ctx.Now(), it.CreatedAt))
	col(cols.projectW, pane.ShortProject(it.Project))
	col(cols.tagW, strings.Join(it.Tags, ","))
	line += pane.OneLine(it.Content, max(8, m.width-lipgloss.Width(line)))
	line = pane.Pad(line, m.width)
	if selected {
		return st.Selected.Render(line)
	}
	if it.Deleted {
		return st.Faint.Render(line)
	}
	return st.Text.Render(line)
}

func (m *Model) detailView() string {
	st := m.ctx.Styles
	title := "memory"
	if m.mem != nil {
		title = fmt.Sprintf("%s · %s · v%d", pane.ShortID(m.mem.ID), m.mem.Type, m.mem.Version)
		if m.mem.IsDeleted {
			title += " · deleted"
		}
	}
	pct := fmt.Sprintf(" %3.0f%%", m.vp.ScrollPercent()*100)
	head := st.Heading.Render(pane.Truncate(title, m.width-len(pct))) + st.Faint.Render(pct)
	return head + "\n" + m.vp.View()
}

func (m *Model) entityView() string {
	st := m.ctx.Styles
	pct := fmt.Sprintf(" %3.0f%%", m.vp.ScrollPercent()*100)
	return st.Heading.Render(pane.Truncate(m.entityTitle(), m.width-len(pct))) + st.Faint.Render(pct) + "\n" + m.vp.View()
}

// detailContent is everything about the open memory, for the viewport.
func (m *Model) detailContent() string {
	mem := m.mem
	if mem == nil {
		return ""
	}
	st := m.ctx.Styles
	w := max(20, m.width)
	var b strings.Builder
	section := func(name string) {
		b.WriteString("\n" + st.Heading.Render(name) + "\n")
	}
	b.WriteString(lipgloss.NewStyle().Width(w).Render(st.Text.Render(mem.Content)) + "\n")
	m.entitiesSection(&b, w)

	section("Fields")
	field := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteString(st.Faint.Render(pane.Pad(k, 12)) + st.Text.Render(pane.Truncate(v, w-12)) + "\n")
	}
	field("id", mem.ID)
	field("type", mem.Type)
	field("category", mem.Category)
	field("importance", fmtImportance(mem.Importance))
	field("confidence", fmtImportance(mem.Confidence))
	field("pinned", yesNo(mem.Pinned))
	field("tags", strings.Join(mem.Tags, ", "))
	field("who", mem.Who)
	field("why", mem.Why)
	field("project", mem.Project)
	field("session", mem.SessionID)
	field("source", strings.TrimSpace(mem.SourceType+" "+mem.SourceID))
	field("version", fmt.Sprintf("%d (%d updates)", mem.Version, mem.UpdateCount))
	age := pane.Age(m.ctx.Now(), mem.CreatedAt)
	if age != "now" {
		age += " ago"
	}
	field("created", mem.CreatedAt+"  ("+age+")")
	field("updated", mem.UpdatedAt+" by "+mem.UpdatedBy)
	if mem.LastAccessed != "" {
		field("accessed", fmt.Sprintf("%d times, last %s", mem.AccessCount, mem.LastAccessed))
	} else {
		field("accessed", "never")
	}
	field("extraction", mem.ExtractionStatus)
	field("embedding", mem.EmbeddingModel)
	if mem.IsDeleted {
		field("deleted", mem.DeletedAt)
	}
	field("hash", mem.ContentHash)
	m.evolutionSection(&b, section, w)

	m.whySection(&b, section)

	section(fmt.Sprintf("History (%d)", len(m.history)))
	for _, h := range m.history {
		line := fmt.Sprintf("%s  %-9s %s (%s)", h.CreatedAt, h.Event, h.ChangedBy, h.ActorType)
		if h.Reason != "" {
			line += " · " + h.Reason
		}
		b.WriteString(st.Text.Render(pane.Truncate(line, w)) + "\n")
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// whySection writes the score parts of a search result, or says there are
// none.
func (m *Model) whySection(b *strings.Builder, section func(string)) {
	st := m.ctx.Styles
	section("Why this result")
	if e := m.explain; e != nil {
		part := func(k string, v float64, note string) {
			b.WriteString(st.Faint.Render(pane.Pad(k, 12)) + st.Text.Render(fmt.Sprintf("%8.4f", v)) + st.Faint.Render("  "+note) + "\n")
		}
		part("bm25", e.BM25, "raw FTS5 score (lower is better; 0 = no keyword hit)")
		part("keyword", e.Keyword, "normalized keyword score")
		part("vector", e.Vector, "cosine similarity (0 = no vector leg)")
		part("fused", e.Fused, "after fusing the legs")
		part("graph", e.Graph, "graph boost")
		part("rerank", e.Rerank, "reranker similarity (0 = not reranked)")
		part("dampening", e.Dampening, "multiplier")
		part("speaker", e.Speaker, "another speaker's turn when the query names one")
		part("decay", e.Decay, "importance × decay multiplier")
		part("evidence", e.Evidence, "confidence × reinforcement × staleness, weighted")
		part("final", e.Final, "")
	} else {
		b.WriteString(st.Faint.Render("Opened from a list, not a search: search for it to see its score parts.") + "\n")
	}
}
