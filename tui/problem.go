package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/styles"
)

// Problem is a full screen explaining why cairn cannot start as usual
// (database locked by another cairn, API port taken), with the choices the
// user has. It replaces a stack trace or a log line on a cleared screen.
type Problem struct {
	Title   string
	Lines   []string
	Choices []Choice
	st      *styles.Styles
	width   int
	height  int
	chosen  string
}

// Choice is one key the problem screen accepts.
type Choice struct {
	Key, Label string
}

func (p *Problem) Init() tea.Cmd { return nil }

func (p *Problem) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		k := msg.String()
		if k == "ctrl+c" || k == "esc" {
			p.chosen = "q"
			return p, tea.Quit
		}
		for _, c := range p.Choices {
			if k == c.Key {
				p.chosen = c.Key
				return p, tea.Quit
			}
		}
	}
	return p, nil
}

func (p *Problem) View() tea.View {
	st := p.st
	var b strings.Builder
	b.WriteString(st.Error.Bold(true).Render(p.Title) + "\n\n")
	for _, l := range p.Lines {
		b.WriteString(st.Text.Render(l) + "\n")
	}
	b.WriteString("\n")
	for _, c := range p.Choices {
		b.WriteString(st.Accent.Render("["+c.Key+"] ") + st.Text.Render(c.Label) + "\n")
	}
	box := st.Border.Padding(1, 2).Width(min(max(40, p.width-4), 90)).Render(strings.TrimRight(b.String(), "\n"))
	v := tea.NewView(lipgloss.Place(max(p.width, 1), max(p.height, 1), lipgloss.Center, lipgloss.Center, box))
	v.AltScreen = true
	return v
}

// AskProblem shows a problem screen and returns the key chosen ("q" when
// the user quits or ctx ends).
func AskProblem(ctx context.Context, theme *themes.Theme, p Problem, opts ...tea.ProgramOption) (string, error) {
	if theme == nil {
		theme = themes.MustBuiltin(themes.DefaultDark)
	}
	p.st = styles.New(theme)
	p.chosen = "q"
	prog := tea.NewProgram(&p, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	if _, err := prog.Run(); err != nil && ctx.Err() == nil {
		return "q", err
	}
	return p.chosen, nil
}
