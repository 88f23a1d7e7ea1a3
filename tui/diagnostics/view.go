package diagnostics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cairnmem/cairn/core/analytics"
	"github.com/cairnmem/cairn/core/wire"

	"charm.land/bubbles/v2/spinner"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/tui/pane"
)

// headerLines are the fixed lines above the scrolling body: the composite
// score, and the prompt, running repair or last result.
const headerLines = 2

// Widths of the body's columns, in cells.
const (
	barWidth    = 20
	colDomain   = 11
	colSignal   = 27
	colValue    = 10
	colPenalty  = 7
	colAction   = 16
	colLatency  = 9
	sparkMargin = 12
)

// View implements pane.Pane.
func (m *Model) View() string {
	out := m.scoreLine() + "\n" + m.actionLine() + "\n" + m.vp.View()
	return lipgloss.NewStyle().Width(m.width).Height(m.height).MaxHeight(m.height).Render(out)
}

// bandStyle is the style of a score's health band.
func (m *Model) bandStyle(status string) lipgloss.Style {
	st := m.ctx.Styles
	switch status {
	case wire.StatusHealthy:
		return st.Success
	case wire.StatusDegraded:
		return st.Warning
	}
	return st.Error
}

// bar draws score (0..1) as width cells, filled in its band's colour.
func (m *Model) bar(score float64, status string, width int) string {
	n := int(math.Round(math.Max(0, math.Min(1, score)) * float64(width)))
	return m.bandStyle(status).Render(strings.Repeat("█", n)) + m.ctx.Styles.Faint.Render(strings.Repeat("░", width-n))
}

func (m *Model) scoreLine() string {
	st := m.ctx.Styles
	r := m.report
	if r == nil {
		if m.loadErr != nil {
			return st.Error.Render(pane.Truncate("Health unknown: "+describe(m.loadErr), m.width))
		}
		return st.Faint.Render("Health: reading the report…")
	}
	left := st.Heading.Render("Health ") + m.bar(r.Composite.Score, r.Composite.Status, barWidth) +
		m.bandStyle(r.Composite.Status).Render(fmt.Sprintf(" %.3f %s", r.Composite.Score, r.Composite.Status))
	right := "updated " + ago(pane.Age(m.ctx.Now(), r.Timestamp)) + fmt.Sprintf(" · %s ms", ms(r.ComputeMs))
	rs := st.Faint
	if m.loadErr != nil {
		right, rs = "poll failed: "+describe(m.loadErr), st.Error
	}
	room := m.width - lipgloss.Width(left) - 2
	if room < 12 {
		return left
	}
	right = pane.Truncate(right, room)
	return left + strings.Repeat(" ", m.width-lipgloss.Width(left)-lipgloss.Width(right)) + rs.Render(right)
}

func ago(age string) string {
	if age == "now" {
		return "just now"
	}
	return age + " ago"
}

// actionLine is the confirmation prompt, the running repair, the last
// repair's outcome, or the repair keys.
func (m *Model) actionLine() string {
	st := m.ctx.Styles
	w := m.width
	switch {
	case m.confirm >= 0:
		a := m.actions[m.confirm]
		return st.Warning.Bold(true).Render(pane.Truncate(fmt.Sprintf("Run %s? y/n · %s (deletes or rewrites rows)", label(a), a.Title), w))
	case m.run != nil:
		f := spinner.MiniDot.Frames
		a := m.actions[m.run.index]
		return st.Accent.Render(pane.Truncate(fmt.Sprintf("%s running %s: %s…", f[m.run.frame%len(f)], label(a), a.Title), w))
	case m.last != nil:
		return m.outcomeLine(w)
	}
	if len(m.actions) == 0 {
		return ""
	}
	return st.Faint.Render(pane.Truncate("Repairs: press a key from the list below (destructive ones ask first).", w))
}

func (m *Model) outcomeLine(w int) string {
	st := m.ctx.Styles
	o := m.last
	a := m.actions[o.index]
	if o.err != nil {
		return st.Error.Render(pane.Truncate(fmt.Sprintf("✗ %s failed: %s", label(a), describe(o.err)), w))
	}
	r := o.result
	mark, style := "✓", st.Success
	if !r.Success {
		mark, style = "!", st.Warning
	}
	text := fmt.Sprintf("%s %s: %d affected · %s", mark, label(a), r.Affected, r.Message)
	score := " · health " + scoreText(o.before) + " → " + scoreText(o.after)
	if o.before != nil && o.after != nil {
		score += fmt.Sprintf(" (%+.3f)", o.after.Score-o.before.Score)
	}
	// The score change matters more than the end of a long message.
	text = pane.Truncate(text, max(10, w-lipgloss.Width(score)))
	return style.Render(text) + st.Text.Render(pane.Truncate(score, max(0, w-lipgloss.Width(text))))
}

func scoreText(h *wire.HealthScore) string {
	if h == nil {
		return "?"
	}
	return fmt.Sprintf("%.3f", h.Score)
}

// label names a repair entry: its action, and "rebuild" for the check
// that repairs.
func label(a wire.RepairInfo) string {
	if a.Options != nil && a.Options.Repair {
		return a.Action + " --repair"
	}
	return a.Action
}

// describe renders an error with its code when it has one
// ("repair_in_progress: ...").
func describe(err error) string {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code != "" {
		return ce.Code + ": " + ce.Message
	}
	return err.Error()
}

// renderBody rebuilds the scrolling body; it runs when data or size
// change, so View only copies lines.
func (m *Model) renderBody() {
	if m.width == 0 || m.ctx.Styles == nil {
		return
	}
	var lines []string
	add := func(l ...string) { lines = append(lines, l...) }
	st := m.ctx.Styles
	if o := m.last; o != nil && o.err == nil && o.result != nil && o.result.Message != "" {
		// The outcome line above is cut to fit; its message shows whole here.
		a := m.actions[o.index]
		add(st.Heading.Render("Last repair: " + label(a)))
		for _, l := range pane.WrapWords(o.result.Message, max(20, m.width-2)) {
			add("  " + st.Text.Render(l))
		}
		add("")
	}
	if m.report != nil {
		add(st.Heading.Render("Domains"))
		for _, d := range m.report.Domains {
			add(m.domainLines(d)...)
		}
		add("", st.Heading.Render("Silent failures"))
		if len(m.report.SilentFailures) == 0 {
			add(st.Faint.Render("  none measured"))
		}
		for _, s := range sortSignals(m.report.SilentFailures) {
			add(m.signalLine(s, s.Domain+"/"))
		}
		add("")
	}
	add(m.recommendationLines()...)
	add("")
	add(m.repairLines()...)
	add("")
	add(m.latencyLines()...)
	add("")
	add(m.usageLines()...)
	add("")
	add(m.errorLines()...)
	m.vp.SetContentLines(lines)
}

func (m *Model) domainLines(d wire.DomainReport) []string {
	st := m.ctx.Styles
	head := st.Bold.Render(pane.Pad(d.Name, colDomain)) + m.bar(d.Score, d.Status, barWidth) +
		m.bandStyle(d.Status).Render(fmt.Sprintf(" %.3f %-9s", d.Score, d.Status)) + st.Faint.Render(fmt.Sprintf(" weight %.2f", d.Weight))
	out := []string{head}
	for _, s := range sortSignals(d.Signals) {
		out = append(out, m.signalLine(s, ""))
	}
	if d.Note != "" {
		out = append(out, st.Faint.Render("    note: "+d.Note))
	}
	return out
}

// sortSignals puts triggered signals first, then the scored ones, then the
// informational ones, keeping the report's order within each group.
func sortSignals(in []wire.Signal) []wire.Signal {
	rank := func(s wire.Signal) int {
		switch {
		case s.Informational:
			return 2
		case s.Triggered:
			return 0
		}
		return 1
	}
	out := slices.Clone(in)
	slices.SortStableFunc(out, func(a, b wire.Signal) int { return rank(a) - rank(b) })
	return out
}

func (m *Model) signalLine(s wire.Signal, prefix string) string {
	st := m.ctx.Styles
	marker, style, penalty := "    ", st.Text, ""
	switch {
	case s.Informational:
		marker, style = "  · ", st.Faint
	case s.Triggered:
		marker, style, penalty = "  ! ", st.Warning, fmt.Sprintf("−%.2f", s.Penalty)
	}
	fixed := marker + pane.Pad(prefix+s.Name, colSignal) + " " + pane.Pad(value(s.Value, s.Unit), colValue) + " " + pane.Pad(penalty, colPenalty)
	// The description wraps under itself: it says what the number means,
	// and a cut one says nothing.
	indent := lipgloss.Width(fixed)
	parts := pane.WrapWords(strings.Join(strings.Fields(s.Message), " "), max(20, m.width-indent))
	msgStyle := style
	if s.Triggered && !s.Informational {
		msgStyle = st.Text
	}
	out := style.Render(fixed) + msgStyle.Render(parts[0])
	for _, p := range parts[1:] {
		out += "\n" + msgStyle.Render(strings.Repeat(" ", indent)+p)
	}
	return out
}

// value renders a signal's value in its unit.
func value(v float64, unit string) string {
	switch unit {
	case "count":
		return fmt.Sprintf("%.0f", v)
	case "ratio":
		return fmt.Sprintf("%.1f%%", v*100)
	case "seconds":
		return fmt.Sprintf("%.0fs", v)
	case "bytes":
		return bytesText(v)
	}
	return fmt.Sprintf("%g", v)
}

func bytesText(v float64) string {
	const unit = 1024
	if v < unit {
		return fmt.Sprintf("%.0f B", v)
	}
	exp, div := 0, float64(unit)
	for n := v / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", v/div, "KMGTP"[exp])
}

func (m *Model) recommendationLines() []string {
	st := m.ctx.Styles
	out := []string{st.Heading.Render("Recommendations")}
	if m.recs == nil {
		return append(out, st.Faint.Render("  not read yet"))
	}
	if len(m.recs) == 0 {
		return append(out, st.Faint.Render("  none: no signal calls for a repair"))
	}
	for _, r := range m.recs {
		k := m.keyFor(r.Action, r.Options)
		name := r.Action
		if r.Options.Repair {
			name += " --repair"
		}
		fixed := "  " + pane.Pad(k, 2) + pane.Pad(name, colAction+8) + " "
		tail := pane.OneLine(r.Domain+"/"+r.Signal+": "+r.Reason, max(5, m.width-lipgloss.Width(fixed)-9))
		line := st.Accent.Render(fixed) + st.Text.Render(tail)
		if r.Halted {
			// Halted: the maintenance loop stopped running it because it
			// did not improve the score; an operator still can.
			line = st.Faint.Render(fixed+tail) + st.Error.Render(" [halted]")
		}
		out = append(out, line)
	}
	return out
}

// keyFor is the key that runs action with opts, or "" when none does.
func (m *Model) keyFor(action string, opts wire.RepairOptions) string {
	for i, a := range m.actions {
		rebuild := a.Options != nil && a.Options.Repair
		if a.Action == action && rebuild == opts.Repair && i < len(m.keys.Repairs) {
			return m.keys.Repairs[i].Help().Key
		}
	}
	return ""
}

func (m *Model) repairLines() []string {
	st := m.ctx.Styles
	out := []string{st.Heading.Render("Repairs")}
	for i, a := range m.actions {
		if i >= len(m.keys.Repairs) {
			break
		}
		fixed := "  " + pane.Pad(m.keys.Repairs[i].Help().Key, 2) + pane.Pad(label(a), colAction+8) + " "
		title := a.Title
		if a.Destructive {
			title += " (asks first)"
		}
		out = append(out, st.Accent.Render(fixed)+st.Text.Render(pane.Truncate(title, max(5, m.width-lipgloss.Width(fixed)))))
	}
	return out
}

func (m *Model) latencyLines() []string {
	st := m.ctx.Styles
	head := "  " + pane.Pad("operation", colAction) + rightPad("p50", colLatency) + rightPad("p95", colLatency) +
		rightPad("p99", colLatency) + rightPad("mean", colLatency) + rightPad("count", colLatency)
	out := []string{st.Heading.Render("Latency (ms)"), st.Faint.Render(head)}
	sums := m.latency.Summaries
	if sums == nil {
		return append(out, st.Faint.Render("  not read yet"))
	}
	for _, op := range analytics.LatencyOps {
		s := sums[op]
		line := "  " + pane.Pad(op, colAction)
		if s.Count == 0 {
			out = append(out, st.Faint.Render(line+rightPad("-", colLatency)+"  no samples yet"))
			continue
		}
		line += rightPad(ms(s.P50), colLatency) + rightPad(ms(s.P95), colLatency) + rightPad(ms(s.P99), colLatency) +
			rightPad(ms(s.Mean), colLatency) + rightPad(fmt.Sprint(s.Count), colLatency)
		out = append(out, st.Text.Render(line))
	}
	samples := m.latency.RecallSamples
	switch {
	case len(samples) > 0:
		n := max(1, min(len(samples), m.width-sparkMargin-2))
		recent := samples[len(samples)-n:]
		out = append(out, st.Faint.Render("  "+pane.Pad("recall", sparkMargin-2))+st.Accent.Render(Sparkline(recent)),
			st.Faint.Render(fmt.Sprintf("  %s last %d recalls, %s to %s ms", strings.Repeat(" ", sparkMargin-4),
				n, ms(slices.Min(recent)), ms(slices.Max(recent)))))
	}
	return out
}

func rightPad(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// ms renders milliseconds compactly.
func ms(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func (m *Model) errorLines() []string {
	st := m.ctx.Styles
	out := []string{st.Heading.Render("Recent errors")}
	if m.errs == nil {
		return append(out, st.Faint.Render("  not read yet"))
	}
	if len(m.errs) == 0 {
		return append(out, st.Faint.Render("  none since start"))
	}
	for _, e := range m.errs {
		fixed := "  " + pane.Pad(pane.Age(m.ctx.Now(), e.Timestamp), 6) + pane.Pad(e.Stage, 11) + pane.Pad(e.Code, 24) + " "
		out = append(out, st.Error.Render(fixed)+st.Text.Render(pane.OneLine(e.Message, max(5, m.width-lipgloss.Width(fixed)))))
	}
	return out
}

// sparkLevels are the eight heights of a sparkline cell.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as one cell each, scaled from the smallest to the
// largest value (all the same: the lowest level).
func Sparkline(values []float64) string {
	if len(values) == 0 {
		return ""
	}
	lo, hi := slices.Min(values), slices.Max(values)
	out := make([]rune, len(values))
	for i, v := range values {
		level := 0
		if hi > lo {
			level = int(math.Round((v - lo) / (hi - lo) * float64(len(sparkLevels)-1)))
		}
		out[i] = sparkLevels[level]
	}
	return string(out)
}

// usageLines are a chosen model's calls and tokens per day over the last
// week (the pipeline's extraction model), with the daily budget.
func (m *Model) usageLines() []string {
	st := m.ctx.Styles
	u := m.usage
	if u == nil {
		return []string{st.Heading.Render("Model use"), st.Faint.Render("  not read yet")}
	}
	head := fmt.Sprintf("Model use, last 7 days · %s of %s tokens today", pane.Count(int(u.TokensToday)), pane.Count(int(u.DailyTokenBudget)))
	out := []string{st.Heading.Render(pane.Truncate(head, m.width))}
	if u.BudgetSpent {
		out = append(out, st.Warning.Render(pane.Truncate("  today's budget is spent: the built-in heuristic learns until the day ends", m.width)))
	}
	if len(u.ModelUsage) == 0 {
		return append(out, st.Faint.Render(pane.Truncate("  no model calls: cairn learns with its built-in heuristic unless you chose a model", m.width)))
	}
	const colDay, colProvider, colN = 12, 12, 9
	out = append(out, st.Faint.Render("  "+pane.Pad("day", colDay)+pane.Pad("provider", colProvider)+rightPad("calls", colN)+
		rightPad("failed", colN)+rightPad("input", colN+2)+rightPad("output", colN+2)))
	for _, d := range u.ModelUsage {
		line := "  " + pane.Pad(d.Day, colDay) + pane.Pad(d.Provider, colProvider) + rightPad(pane.Count(int(d.Calls)), colN) +
			rightPad(pane.Count(int(d.Failed)), colN) + rightPad(pane.Count(int(d.InputTokens)), colN+2) + rightPad(pane.Count(int(d.OutputTokens)), colN+2)
		if d.Failed > 0 {
			out = append(out, st.Warning.Render(line))
		} else {
			out = append(out, st.Text.Render(line))
		}
	}
	return out
}
