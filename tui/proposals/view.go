package proposals

import (
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/core/extract"
	"github.com/cairnmem/cairn/core/wire"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/cairnmem/cairn/tui/diff"
	"github.com/cairnmem/cairn/tui/pane"
)

// View implements pane.Pane.
func (m *Model) View() string {
	var out string
	if m.mode == modeDetail || (m.detailID != "" && m.mode == modeReject) {
		out = m.detailView()
	} else {
		out = m.listView()
	}
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

func (m *Model) head() string {
	what := fmt.Sprintf("%s pending proposals", pane.Count(len(m.visible)))
	if m.decided {
		what = fmt.Sprintf("%s decided proposals", pane.Count(len(m.visible)))
	}
	switch {
	case len(m.visible) != len(m.all):
		what += fmt.Sprintf(" (of %s)", pane.Count(m.total))
	case m.total > len(m.all):
		what += fmt.Sprintf(" (the first %s of %s)", pane.Count(len(m.all)), pane.Count(m.total))
	}
	what += ", " + sortLabel(Sorts[m.sort], m.decided)
	if n := len(m.marks); n > 0 {
		what = fmt.Sprintf("%d marked (a approves, r rejects, esc unmarks) · %s", n, what)
	}
	var f []string
	if a := Actions[m.action]; a != "" {
		f = append(f, "action="+a)
	}
	if x := Flags[m.flag]; x != "" {
		f = append(f, "flag="+x)
	}
	if t := strings.TrimSpace(m.text.Value()); t != "" {
		f = append(f, fmt.Sprintf("matching %q", t))
	}
	if len(f) > 0 {
		what += " · " + strings.Join(f, " ")
	}
	return what
}

// messageLine is the prompt being typed, the question being asked, or the
// last action's outcome.
func (m *Model) messageLine() string {
	st := m.ctx.Styles
	switch m.mode {
	case modeReject, modeThreshold, modeMarkReject:
		line := m.input.View()
		if m.flash.Err && m.flash.Text != "" {
			line += "  " + st.Error.Render(m.flash.Text)
		}
		return pane.Truncate(line, m.width)
	case modeConfirm:
		return st.Warning.Bold(true).Render(pane.Truncate(fmt.Sprintf("Approve %d pending ADD proposals with confidence ≥ %.2f? y/n", len(m.bulk), m.bulkMin), m.width))
	case modeMarkApprove:
		return st.Warning.Bold(true).Render(pane.Truncate(fmt.Sprintf("Approve the %d marked proposals (%s)? y/n", len(m.marks), m.markedActions()), m.width))
	}
	if m.text.Focused() {
		return m.text.View()
	}
	if m.flash.Err {
		return st.Error.Render(pane.Truncate(m.flash.Text, m.width))
	}
	return st.Success.Render(pane.Truncate(m.flash.Text, m.width))
}

// Column widths of the list.
const (
	colAction = 6
	colConf   = 4
	colFlags  = 4
	colSource = 8
	colWho    = 10
	colWhen   = 5
)

func (m *Model) listView() string {
	st := m.ctx.Styles
	var b strings.Builder
	b.WriteString(st.Faint.Render(pane.Truncate(m.head(), m.width)) + "\n")
	b.WriteString(m.messageLine() + "\n")
	cols := "  " + pane.Pad("action", colAction) + " " + pane.Pad("conf", colConf) + " " + pane.Pad("flag", colFlags) + " " + pane.Pad("source", colSource) + " "
	if m.decided {
		cols += pane.Pad("state", 8) + " " + pane.Pad("by", colWho) + " " + pane.Pad("when", colWhen) + " "
	}
	b.WriteString(st.Faint.Render(pane.Truncate(cols+"fact", m.width)))
	rows := 0
	if len(m.visible) == 0 && m.loaded {
		empty := "No pending proposals. In shadow mode the pipeline records one per extracted fact."
		if m.decided && len(m.all) == 0 {
			empty = "No decided proposals yet."
		} else if len(m.all) > 0 {
			empty = "No pending proposal matches the filters (esc clears them)."
			if m.decided {
				empty = "No decided proposal matches the filters (esc clears them)."
			}
		}
		b.WriteString("\n" + st.Faint.Render(pane.Truncate(empty, m.width)))
		rows++
	}
	for i := m.offset; i < len(m.visible) && i < m.offset+m.listHeight(); i++ {
		b.WriteString("\n" + m.row(m.visible[i], i == m.cursor))
		rows++
	}
	if ph := m.previewHeight(); ph > 0 {
		for ; rows < m.listHeight(); rows++ {
			b.WriteString("\n")
		}
		b.WriteString("\n" + st.Rule.Render(strings.Repeat("─", m.width)))
		if p := m.Selected(); p != nil {
			lines := strings.Split(m.describe(p, m.width), "\n")
			if len(lines) > ph-1 {
				lines = append(lines[:ph-2], st.Faint.Render("… enter shows all"))
			}
			b.WriteString("\n" + strings.Join(lines, "\n"))
		}
	}
	return b.String()
}

// flags is the compact flag column: S shadow, B blocked, R review needed,
// C contradiction risk.
func flags(p *wire.Proposal) string {
	var f string
	for _, x := range []struct {
		on bool
		c  string
	}{{p.Shadow, "S"}, {p.Blocked, "B"}, {p.ReviewNeeded, "R"}, {p.ContradictionRisk, "C"}} {
		if x.on {
			f += x.c
		}
	}
	return f
}

func (m *Model) row(p *wire.Proposal, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	if m.Marked(p.ID) {
		marker = marker[:len(marker)-1] + "●"
	}
	line := marker + pane.Pad(strings.ToUpper(p.Action), colAction) + " " + pane.Pad(fmt.Sprintf("%.2f", p.Confidence), colConf) + " " +
		pane.Pad(flags(p), colFlags) + " " + pane.Pad(source(p, false), colSource) + " "
	if m.decided {
		line += pane.Pad(p.State, 8) + " " + pane.Pad(p.DecidedBy, colWho) + " " + pane.Pad(pane.Age(m.ctx.Now(), decidedAt(p)), colWhen) + " "
	}
	line += pane.OneLine(p.Fact, max(5, m.width-lipgloss.Width(line)))
	line = pane.Pad(line, m.width)
	switch {
	case selected:
		return st.Selected.Render(line)
	case p.ContradictionRisk:
		return st.Warning.Render(line)
	}
	return st.Text.Render(line)
}

func (m *Model) detailView() string {
	st := m.ctx.Styles
	p := m.byID(m.detailID)
	head := "proposal"
	if p != nil {
		head = fmt.Sprintf("%s proposal %s · %s · confidence %.2f", strings.ToUpper(p.Action), pane.ShortID(p.ID), p.State, p.Confidence)
	}
	return st.Heading.Render(pane.Truncate(head, m.width)) + "\n" + m.messageLine() + "\n" + m.vp.View()
}

// renderDetail refreshes the detail view's content.
func (m *Model) renderDetail() {
	if m.detailID == "" {
		return
	}
	p := m.byID(m.detailID)
	if p == nil {
		m.vp.SetContent(m.ctx.Styles.Faint.Render("This proposal is no longer in the list (decided elsewhere?)."))
		return
	}
	m.vp.SetContent(m.describe(p, m.width))
}

// describe renders one proposal: the fact, its flags and reasons, the
// decision when there is one, and for updates and deletes the target's
// current content beside the proposed content, with a word diff.
func (m *Model) describe(p *wire.Proposal, width int) string {
	st := m.ctx.Styles
	var b strings.Builder
	for _, l := range wrap(p.Fact, width) {
		b.WriteString(st.Bold.Render(l) + "\n")
	}
	meta := []string{fmt.Sprintf("%s %.2f", strings.ToUpper(p.Action), p.Confidence), p.FactType}
	var warn []string
	if p.Shadow {
		meta = append(meta, "shadow")
	}
	if p.Blocked {
		warn = append(warn, "blocked")
	}
	if p.ReviewNeeded {
		warn = append(warn, "review needed")
	}
	if p.ContradictionRisk {
		warn = append(warn, "contradiction risk")
	}
	meta = append(meta, "from "+source(p, true))
	if p.JobID != "" {
		meta = append(meta, "job "+pane.ShortID(p.JobID))
	}
	if age := pane.Age(m.ctx.Now(), p.CreatedAt); age == "now" {
		meta = append(meta, "just now")
	} else {
		meta = append(meta, age+" ago")
	}
	line := st.Faint.Render(strings.Join(meta, " · "))
	if len(warn) > 0 {
		line += st.Faint.Render(" · ") + st.Warning.Render(strings.Join(warn, " · "))
	}
	b.WriteString(ansi.Truncate(line, width, "…") + "\n")
	for _, r := range []struct{ label, v string }{{"why", p.Reason}, {"blocked", p.BlockedReason}, {"skipped", p.SkippedReason}} {
		if r.v != "" {
			b.WriteString(st.Faint.Render(pane.Truncate(r.label+": "+r.v, width)) + "\n")
		}
	}
	if p.State != wire.ProposalPending {
		d := fmt.Sprintf("%s by %s at %s", p.State, orDash(p.DecidedBy), orDash(p.DecidedAt))
		if p.DecisionReason != "" {
			d += ": " + p.DecisionReason
		}
		if p.AppliedMemoryID != "" {
			d += " → memory " + pane.ShortID(p.AppliedMemoryID)
		}
		b.WriteString(st.Accent.Render(pane.Truncate(d, width)) + "\n")
	}
	if p.TargetMemoryID != "" {
		b.WriteString(m.targetView(p, width))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// targetView puts the target's current content beside what the proposal
// would make of it, then a word diff of the two.
func (m *Model) targetView(p *wire.Proposal, width int) string {
	st := m.ctx.Styles
	t, ok := m.targets[p.TargetMemoryID]
	switch {
	case !ok || (t.mem == nil && t.err == nil):
		return st.Faint.Render("loading target "+pane.ShortID(p.TargetMemoryID)+"…") + "\n"
	case t.err != nil:
		return st.Error.Render(pane.Truncate("target "+pane.ShortID(p.TargetMemoryID)+": "+describe(t.err), width)) + "\n"
	}
	cur := t.mem
	proposed := p.Fact
	label := "proposed"
	switch p.Action {
	case extract.ActionDelete:
		proposed, label = "", "proposed: delete"
	case extract.ActionNone, extract.ActionAdd:
		label = "proposed (added beside it)"
	}
	left := fmt.Sprintf("current %s v%d", pane.ShortID(cur.ID), cur.Version)
	if p.TargetVersion > 0 && int64(cur.Version) != p.TargetVersion {
		left += fmt.Sprintf(" (proposal saw v%d)", p.TargetVersion)
	}
	if cur.IsDeleted {
		left += " (deleted)"
	}
	colW := max(10, (width-3)/2)
	col := func(title, body string, style func(string) string) string {
		var c strings.Builder
		c.WriteString(st.Heading.Render(pane.Truncate(title, colW)))
		for _, l := range wrap(body, colW) {
			c.WriteString("\n" + style(l))
		}
		return lipgloss.NewStyle().Width(colW).Render(c.String())
	}
	text := func(s string) string { return st.Text.Render(s) }
	leftCol := col(left, cur.Content, text)
	rightCol := col(label, proposed, text)
	sep := st.Rule.Render(strings.Repeat(" │ \n", max(lipgloss.Height(leftCol), lipgloss.Height(rightCol))))
	out := lipgloss.JoinHorizontal(lipgloss.Top, leftCol, strings.TrimSuffix(sep, "\n"), rightCol) + "\n"
	if p.Action == extract.ActionUpdate || p.Action == extract.ActionDelete {
		out += st.Faint.Render("diff") + "\n"
		for _, l := range wrap(m.wordDiff(cur.Content, proposed), width) {
			out += l + "\n"
		}
	}
	return out
}

// wordDiff is tui/diff run over words instead of lines: removed words in
// the removed style, added ones in the added style (with [-…-] and {+…+}
// markers, so it reads without colour too).
func (m *Model) wordDiff(old, new string) string {
	st := m.ctx.Styles
	var parts []string
	for _, l := range diff.Lines(strings.Join(strings.Fields(old), "\n"), strings.Join(strings.Fields(new), "\n")) {
		switch l.Op {
		case diff.Removed:
			parts = append(parts, "[-"+l.Text+"-]")
		case diff.Added:
			parts = append(parts, "{+"+l.Text+"+}")
		default:
			parts = append(parts, l.Text)
		}
	}
	// Colour after wrapping would split escape codes; colour per word and
	// let wrap measure cells (lipgloss.Wrap is ANSI-aware).
	for i, w := range parts {
		switch {
		case strings.HasPrefix(w, "[-"):
			parts[i] = st.Removed.Render(w)
		case strings.HasPrefix(w, "{+"):
			parts[i] = st.Added.Render(w)
		default:
			parts[i] = st.Text.Render(w)
		}
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// wrap cuts s into lines of at most w cells, at spaces where it can; it
// keeps ANSI styles intact.
func wrap(s string, w int) []string {
	w = max(w, 5)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, strings.Split(lipgloss.Wrap(para, w, " "), "\n")...)
	}
	return out
}

// source names where a proposal came from: a memory by its short id, or
// an agent session (the pipeline's source "session:KEY"), which is no
// memory, so the list says "session" rather than the key's tail; full
// adds the session's key.
func source(p *wire.Proposal, full bool) string {
	key, ok := strings.CutPrefix(p.SourceMemoryID, "session:")
	switch {
	case !ok:
		return pane.ShortID(p.SourceMemoryID)
	case full:
		return "session " + key
	}
	return "session"
}
