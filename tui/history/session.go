package history

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core/ranker"
	"github.com/cairnmem/cairn/core/sessions"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/pane"
)

// The session view: from an event made in an agent session, the session
// itself — its checkpoints, the memories it was offered with their rank,
// score, uses and relevance, and its continuity score and method.

// openSession is the key that opens the selected event's session.
var openSession = key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "open the event's session"))

type sessionMsg struct {
	key  string
	info *sessions.Info
	err  error
}

// loadSession reads the session of the selected event.
func (m *Model) loadSession() tea.Cmd {
	e, ok := m.selected()
	if !ok || e.SessionID == "" {
		return pane.Notice("this event was not made in an agent session")
	}
	sb := m.ctx.Client
	if sb == nil {
		return pane.Notice("sessions are not available here")
	}
	k := e.SessionID
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		info, err := sb.Session(ctx, k)
		return sessionMsg{key: k, info: info, err: err}
	}
}

func (m *Model) showSession(msg sessionMsg) tea.Cmd {
	if msg.err != nil {
		return pane.Fail("session "+msg.key, msg.err)
	}
	m.session = msg.info
	m.vp.SetContent(m.sessionContent())
	m.vp.GotoTop()
	return nil
}

func (m *Model) sessionView() string {
	st := m.ctx.Styles
	s := m.session
	head := fmt.Sprintf("session %s · %s · %s", s.Key, s.Harness, orNone(s.Project))
	sub := fmt.Sprintf("started %s · %d prompts · %d injections", s.StartedAt, s.PromptCount, s.Injections)
	if s.EndedAt != "" {
		sub += " · ended " + s.EndedAt
	}
	return st.Heading.Render(pane.Truncate(head, m.width)) + "\n" + st.Faint.Render(pane.Truncate(sub, m.width)) + "\n" + m.vp.View()
}

// sessionContent renders the session's score, memories and checkpoints.
func (m *Model) sessionContent() string {
	st := m.ctx.Styles
	s := m.session
	w := max(10, m.width-2)
	var b strings.Builder
	line := func(style func(...string) string, text string) {
		for _, part := range wrap(text, w) {
			b.WriteString(style(part) + "\n")
		}
	}
	c := s.Continuity
	if c == nil {
		line(st.Faint.Render, "No continuity record (continuity.enabled is off).")
		return b.String()
	}
	if sc := c.Score; sc != nil {
		line(st.Heading.Render, fmt.Sprintf("Score %.2f (confidence %.2f, %s): %d of %d injected memories used", sc.Score, sc.Confidence,
			sc.Method, sc.MemoriesUsed, sc.MemoriesRecalled))
		if sc.Reasoning != "" {
			line(st.Faint.Render, sc.Reasoning)
		}
	} else {
		line(st.Faint.Render, "Not scored yet (scored at session end).")
	}
	b.WriteString("\n")
	line(st.Heading.Render, fmt.Sprintf("Memories offered (%d)", len(c.Memories)))
	line(st.Faint.Render, "  source        rank  score  uses  relevance  injected  memory")
	for _, om := range c.Memories {
		rel := "  -  "
		if om.Relevance != nil {
			rel = fmt.Sprintf("%5.2f", *om.Relevance)
		}
		inj := "no"
		if om.WasInjected {
			inj = "yes"
		}
		src := om.Source
		if om.Source == ranker.SourcePrompt {
			src = fmt.Sprintf("prompt %d", om.Group)
		}
		row := fmt.Sprintf("  %-13s %4d  %5.2f  %4d  %9s  %-8s  %s %s", src, om.Rank, om.Score, om.Uses, rel, inj,
			pane.ShortID(om.MemoryID), pane.OneLine(om.Content, 200))
		line(st.Text.Render, row)
	}
	b.WriteString("\n")
	line(st.Heading.Render, fmt.Sprintf("Checkpoints (%d, newest first)", len(c.Checkpoints)))
	for _, cp := range c.Checkpoints {
		when := cp.CreatedAt
		if t, err := wire.ParseTime(cp.CreatedAt); err == nil {
			when = t.Format("2006-01-02 15:04:05")
		}
		line(st.Text.Render, fmt.Sprintf("%s · %s · %d prompts", when, cp.Trigger, cp.PromptCount))
		for _, l := range strings.Split(strings.TrimSpace(cp.Digest), "\n") {
			line(st.Faint.Render, "  "+l)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func orNone(s string) string {
	if s == "" {
		return "no project"
	}
	return s
}
