package recall

import (
	"fmt"
	"strings"

	"github.com/cairnmem/cairn/tui/pane"
)

// evolutionSection writes how the open memory evolved: its key and scope,
// how often it was stated again, what replaced it and what it replaced,
// and the attributes the linker read from it (its aspect's weight, entity,
// aspect, kind, attribute = value, and the memory whose newer value
// superseded it).
func (m *Model) evolutionSection(b *strings.Builder, section func(string), w int) {
	e := m.mem.Evolution
	if e == nil {
		return
	}
	st := m.ctx.Styles
	section("Evolution")
	field := func(k, v string) {
		if v != "" {
			b.WriteString(st.Faint.Render(pane.Pad(k, 12)) + st.Text.Render(pane.Truncate(v, w-12)) + "\n")
		}
	}
	field("key", e.Key)
	field("scope", e.Scope)
	if e.Reinforced > 0 {
		field("reinforced", fmt.Sprintf("%d times, last %s", e.Reinforced, e.LastConfirmedAt))
	}
	if e.SupersededBy != "" {
		field("successor", pane.ShortID(e.SupersededBy)+" (superseded: recover to restore)")
	}
	if len(e.Supersedes) > 0 {
		ids := make([]string, len(e.Supersedes))
		for i, id := range e.Supersedes {
			ids[i] = pane.ShortID(id)
		}
		field("supersedes", strings.Join(ids, ", "))
	}
	if len(e.Attributes) == 0 {
		return
	}
	section(fmt.Sprintf("Attributes (%d)", len(e.Attributes)))
	for _, a := range e.Attributes {
		// The weight column: the aspect's weight from aspect feedback.
		weight := "    "
		if a.AspectWeight != nil {
			weight = fmt.Sprintf("%.2f", *a.AspectWeight)
		}
		line := fmt.Sprintf("%s  %s · %s · %s  %s = %s", weight, a.Entity, a.Aspect, a.Kind, a.Name, a.Value)
		if a.Status == "superseded" {
			line += " · superseded by " + pane.ShortID(a.SupersededBy)
			b.WriteString(st.Faint.Render(pane.Truncate(line, w)) + "\n")
			continue
		}
		b.WriteString(st.Text.Render(pane.Truncate(line, w)) + "\n")
	}
}
