// Package styles turns a themes.Theme into the lipgloss styles the panes
// draw with. Panes use these named styles only, so a theme (or NO_COLOR,
// which the renderer applies by dropping colours) changes every pane alike.
package styles

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/themes"
)

// Styles are the theme's roles as ready-made styles.
type Styles struct {
	Theme *themes.Theme

	Text, Faint, Accent, Bold lipgloss.Style
	Success, Warning, Error   lipgloss.Style
	// Selected marks the row under the cursor. It is bold as well as
	// coloured, and rows also carry a "›" marker, so the selection stays
	// visible when NO_COLOR strips the colours.
	Selected lipgloss.Style
	Border   lipgloss.Style // a frame around boxes
	Rule     lipgloss.Style // horizontal rules and separators

	TabActive, TabInactive lipgloss.Style
	StatusBar, StatusKey   lipgloss.Style
	StatusErr              lipgloss.Style
	// StatusWarn marks what waits for a person in the status bar (dead
	// jobs, pending proposals).
	StatusWarn lipgloss.Style

	Added, Removed lipgloss.Style
	Heading        lipgloss.Style

	Help help.Styles
}

// New builds the styles for t.
func New(t *themes.Theme) *Styles {
	base := lipgloss.NewStyle()
	s := &Styles{Theme: t}
	s.Text = base.Foreground(t.Text)
	s.Faint = base.Foreground(t.Faint)
	s.Accent = base.Foreground(t.Accent)
	s.Bold = base.Foreground(t.Text).Bold(true)
	s.Success = base.Foreground(t.Success)
	s.Warning = base.Foreground(t.Warning)
	s.Error = base.Foreground(t.Error)
	s.Selected = base.Foreground(t.SelectionFG).Background(t.SelectionBG).Bold(true)
	s.Border = base.Border(lipgloss.RoundedBorder()).BorderForeground(t.Border)
	s.Rule = base.Foreground(t.Border)
	s.TabActive = base.Foreground(t.Accent).Bold(true).Underline(true)
	s.TabInactive = base.Foreground(t.Faint)
	s.StatusBar = base.Foreground(t.StatusFG).Background(t.StatusBG)
	s.StatusKey = base.Foreground(t.Accent).Background(t.StatusBG).Bold(true)
	s.StatusErr = base.Foreground(t.Error).Background(t.StatusBG).Bold(true)
	s.StatusWarn = base.Foreground(t.Warning).Background(t.StatusBG).Bold(true)
	s.Added = base.Foreground(t.Added)
	s.Removed = base.Foreground(t.Removed)
	s.Heading = base.Foreground(t.Accent).Bold(true)
	key := base.Foreground(t.Accent)
	desc := base.Foreground(t.Faint)
	sep := base.Foreground(t.Border)
	s.Help = help.Styles{Ellipsis: sep, ShortKey: key, ShortDesc: desc, ShortSeparator: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep}
	return s
}

// Input styles a text input with the theme's roles. The cursor does not
// blink: a blinking cursor re-renders twice a second for nothing.
func (s *Styles) Input() textinput.Styles {
	t := s.Theme
	st := textinput.Styles{
		Focused: textinput.StyleState{Text: s.Text, Placeholder: s.Faint, Suggestion: s.Faint, Prompt: s.Accent},
		Blurred: textinput.StyleState{Text: s.Faint, Placeholder: s.Faint, Suggestion: s.Faint, Prompt: s.Faint},
	}
	st.Cursor = textinput.CursorStyle{Color: t.Accent, Shape: tea.CursorBlock}
	return st
}

// TextArea styles a multi-line editor with the theme's roles.
func (s *Styles) TextArea() textarea.Styles {
	t := s.Theme
	focused := textarea.StyleState{Text: s.Text, Placeholder: s.Faint, Prompt: s.Accent,
		LineNumber: s.Faint, CursorLineNumber: s.Accent, EndOfBuffer: s.Faint, CursorLine: s.Text,
		Selection: s.Selected}
	blurred := focused
	blurred.Text, blurred.CursorLine, blurred.Prompt = s.Faint, s.Faint, s.Faint
	return textarea.Styles{Focused: focused, Blurred: blurred,
		Cursor: textarea.CursorStyle{Color: t.Accent, Shape: tea.CursorBlock}}
}
