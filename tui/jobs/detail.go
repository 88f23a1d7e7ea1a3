package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/pipeline"
	"github.com/cairnmem/cairn/core/wire"

	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/tui/pane"
)

// Detail renders one job for the detail view: its fields, its payload, its
// result (an extract job's facts, entities, proposals and warnings, parsed;
// anything else as indented JSON) and its last error, wrapped to width.
func Detail(ctx *pane.Context, j *wire.Job, width int) string {
	st := ctx.Styles
	var b strings.Builder
	field := func(name, v string) {
		if v != "" {
			b.WriteString(st.Faint.Render(pane.Pad(name, 12)) + st.Text.Render(pane.Truncate(v, max(5, width-12))) + "\n")
		}
	}
	section := func(name string) { b.WriteString("\n" + st.Heading.Render(name) + "\n") }
	text := func(s string, style lipgloss.Style) {
		for _, l := range wrapLines(s, width) {
			b.WriteString(style.Render(l) + "\n")
		}
	}
	b.WriteString(st.Heading.Render("Fields") + "\n")
	field("id", j.ID)
	field("memory", j.MemoryID)
	field("document", j.DocumentID)
	field("status", displayStatus(j))
	field("attempts", fmt.Sprintf("%d of %d", j.Attempts, j.MaxAttempts))
	field("created", j.CreatedAt)
	field("updated", j.UpdatedAt)
	field("next try", j.NextAttemptAt)
	if j.LeasedAt != "" {
		field("leased", j.LeasedAt+" by "+j.LeaseOwner)
	}
	field("completed", j.CompletedAt)
	field("failed", j.FailedAt)

	if j.Error != "" {
		section("Error")
		text(j.Error, st.Error)
	}
	section("Payload")
	if strings.TrimSpace(j.Payload) == "" {
		b.WriteString(st.Faint.Render("(none)") + "\n")
	} else {
		text(indentJSON(j.Payload), st.Text)
	}
	section("Result")
	switch {
	case strings.TrimSpace(j.Result) == "":
		b.WriteString(st.Faint.Render("(none yet)") + "\n")
	case j.JobType == jobs.Extract:
		var r pipeline.ExtractJobResult
		if err := json.Unmarshal([]byte(j.Result), &r); err != nil {
			b.WriteString(st.Warning.Render("the result is not an extract result ("+err.Error()+"):") + "\n")
			text(indentJSON(j.Result), st.Text)
			break
		}
		// The result's strings were JSON escapes until now: sanitize
		// what the decoding produced.
		r = pane.Clean(r)
		writeExtract(ctx, &b, &r, width)
	default:
		text(indentJSON(j.Result), st.Text)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeExtract(ctx *pane.Context, b *strings.Builder, r *pipeline.ExtractJobResult, width int) {
	st := ctx.Styles
	line := func(style lipgloss.Style, s string) {
		for i, l := range wrapLines(s, width-4) {
			prefix := "  • "
			if i > 0 {
				prefix = "    "
			}
			b.WriteString(style.Render(prefix+l) + "\n")
		}
	}
	summary := fmt.Sprintf("%s by %s, %s mode: %d facts, %d entities, %d proposals", r.Status, r.Provider, r.WriteMode,
		r.FactCount, r.EntityCount, len(r.Proposals))
	if r.SkipReason != "" {
		summary += " (" + r.SkipReason + ")"
	}
	b.WriteString(st.Text.Render(pane.Truncate(summary, width)) + "\n")
	w := r.WriteStats
	writes := fmt.Sprintf("writes: %d added, %d deduped, %d recorded, %d blocked, %d skipped, %d updated, %d deleted, %d failed",
		w.Added, w.Deduped, w.Recorded, w.Blocked, w.Skipped, w.Updated, w.Deleted, w.Failed)
	for _, l := range pane.WrapWords(writes, max(20, width)) {
		b.WriteString(st.Faint.Render(l) + "\n")
	}
	if len(r.Screened) > 0 {
		reasons := make([]string, 0, len(r.Screened))
		for k := range r.Screened {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		parts := make([]string, len(reasons))
		for i, k := range reasons {
			parts[i] = fmt.Sprintf("%d %s", r.Screened[k], strings.ReplaceAll(k, "_", " "))
		}
		b.WriteString(st.Faint.Render(pane.Truncate("not proposed: "+strings.Join(parts, ", "), width)) + "\n")
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("Facts decided on (%d)", len(r.Facts))) + "\n")
	for _, f := range r.Facts {
		line(st.Text, fmt.Sprintf("[%s %.2f] %s", f.Type, f.Confidence, f.Content))
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("Entities (%d)", len(r.Entities))) + "\n")
	for _, e := range r.Entities {
		line(st.Text, fmt.Sprintf("%s -%s-> %s (%.2f)", e.Source, e.Relationship, e.Target, e.Confidence))
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("Proposals (%d)", len(r.Proposals))) + "\n")
	for _, p := range r.Proposals {
		s := fmt.Sprintf("%s %.2f %s: %s", strings.ToUpper(p.Action), p.Confidence, p.State, p.Fact)
		if p.TargetMemoryID != "" {
			s += " → " + pane.ShortID(p.TargetMemoryID)
		}
		style := st.Text
		if p.ContradictionRisk {
			s += " [contradiction]"
			style = st.Warning
		}
		line(style, s)
	}
	if len(r.Warnings) > 0 {
		b.WriteString(st.Bold.Render(fmt.Sprintf("Warnings (%d)", len(r.Warnings))) + "\n")
		for _, x := range r.Warnings {
			line(st.Warning, x)
		}
	}
}

// indentJSON pretty-prints s when it is JSON, else returns it as is.
func indentJSON(s string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(s), "", "  ") != nil {
		return s
	}
	return out.String()
}

// wrapLines cuts s into lines of at most w cells, at spaces where it can.
func wrapLines(s string, w int) []string {
	w = max(w, 5)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		wrapped := lipgloss.Wrap(para, w, " ")
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	return out
}
