package recall

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/text"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/styles"
)

// Form fields, in tab order.
const (
	fieldContent = iota
	fieldTags
	fieldType
	fieldImportance
	fieldProject
	fieldPinned
	fieldCount
)

// conflictLines is how much of the stored content a version conflict shows
// above the editor.
const conflictLines = 5

// form creates a memory (base nil) or edits base.
type form struct {
	st         *styles.Styles
	base       *core.Memory // the version an edit is saved against
	content    textarea.Model
	tags       textinput.Model
	typ        textinput.Model
	importance textinput.Model
	project    textinput.Model
	pinned     bool
	focused    int
	err        string
	// types are the types a person may pick (pane.Context.Types; nil:
	// core.KnownTypes).
	types []string
	// conflict is the stored memory after a save lost a version race.
	conflict      *core.Memory
	width, height int
}

func newForm(st *styles.Styles) *form {
	f := &form{st: st}
	f.content = textarea.New()
	f.content.Placeholder = "what should be remembered"
	f.content.ShowLineNumbers = false
	f.content.Prompt = "│ "
	f.tags = textinput.New()
	f.tags.Prompt = "tags       "
	f.tags.Placeholder = "comma,separated"
	f.typ = textinput.New()
	f.typ.Prompt = "type       "
	f.typ.Placeholder = "inferred when empty (fact, decision, preference, ...)"
	f.importance = textinput.New()
	f.importance.Prompt = "importance "
	f.importance.Placeholder = "0 to 1, default from config"
	f.project = textinput.New()
	f.project.Prompt = "project    "
	f.project.Placeholder = "none: recalled in every project"
	f.applyStyles(st)
	return f
}

// newCreateForm is the new-memory form; its project starts as the
// current project (empty: none).
func newCreateForm(st *styles.Styles, project string) *form {
	f := newForm(st)
	f.project.SetValue(project)
	return f
}

func newEditForm(m *core.Memory, st *styles.Styles) *form {
	f := newForm(st)
	f.base = m
	f.content.SetValue(m.Content)
	f.content.MoveToBegin()
	f.tags.SetValue(strings.Join(m.Tags, ","))
	f.typ.SetValue(m.Type)
	f.importance.SetValue(fmtImportance(m.Importance))
	f.project.SetValue(m.Project)
	f.pinned = m.Pinned
	return f
}

func (f *form) applyStyles(st *styles.Styles) {
	f.st = st
	f.content.SetStyles(st.TextArea())
	for _, in := range []*textinput.Model{&f.tags, &f.typ, &f.importance, &f.project} {
		in.SetStyles(st.Input())
	}
}

func (f *form) setSize(w, h int) {
	f.width, f.height = w, h
	f.content.SetWidth(max(10, w-2))
	reserved := 8 // title, 5 field lines, error line, spacing
	if f.conflict != nil {
		reserved += conflictLines + 2
	}
	f.content.SetHeight(max(2, h-reserved))
	for _, in := range []*textinput.Model{&f.tags, &f.typ, &f.importance, &f.project} {
		in.SetWidth(max(10, w-14))
	}
}

func (f *form) focus() tea.Cmd {
	f.content.Blur()
	f.tags.Blur()
	f.typ.Blur()
	f.importance.Blur()
	f.project.Blur()
	switch f.focused {
	case fieldContent:
		return f.content.Focus()
	case fieldTags:
		return f.tags.Focus()
	case fieldType:
		return f.typ.Focus()
	case fieldImportance:
		return f.importance.Focus()
	case fieldProject:
		return f.project.Focus()
	}
	return nil
}

func (f *form) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "tab":
			f.focused = (f.focused + 1) % fieldCount
			return f.focus()
		case "shift+tab":
			f.focused = (f.focused + fieldCount - 1) % fieldCount
			return f.focus()
		case "space", " ", "enter", "x":
			if f.focused == fieldPinned {
				f.pinned = !f.pinned
				return nil
			}
		}
	}
	var cmd tea.Cmd
	switch f.focused {
	case fieldContent:
		f.content, cmd = f.content.Update(msg)
	case fieldTags:
		f.tags, cmd = f.tags.Update(msg)
	case fieldType:
		f.typ, cmd = f.typ.Update(msg)
	case fieldImportance:
		f.importance, cmd = f.importance.Update(msg)
	case fieldProject:
		f.project, cmd = f.project.Update(msg)
	}
	return cmd
}

func (f *form) validate() error {
	if strings.TrimSpace(f.content.Value()) == "" {
		return errors.New("content is empty")
	}
	// A type an agent gave (kept as it is) is not the person's typo.
	if typ := strings.TrimSpace(f.typ.Value()); f.base == nil || typ != f.base.Type {
		if err := core.CheckType("type", typ, f.types); err != nil {
			return fmt.Errorf("type: %w", err)
		}
	}
	if s := strings.TrimSpace(f.importance.Value()); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 || x > 1 {
			return fmt.Errorf("importance %q: want a number from 0 to 1", s)
		}
	}
	return nil
}

// save writes the form: Remember for a new memory, Modify with IfVersion
// (the version the edit started from) for an edit. Only changed fields
// are sent.
func (f *form) save(b client.Client, reason string) tea.Cmd {
	content := f.content.Value()
	tags := text.SplitTags(f.tags.Value())
	typ := strings.TrimSpace(f.typ.Value())
	var imp *float64
	if s := strings.TrimSpace(f.importance.Value()); s != "" {
		x, _ := strconv.ParseFloat(s, 64)
		imp = &x
	}
	project := strings.TrimSpace(f.project.Value())
	pinned := f.pinned
	base := f.base
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		if base == nil {
			in := core.RememberInput{Content: content, Type: typ, Tags: tags, Importance: imp, Pinned: &pinned, Project: project}
			if in.Tags == nil {
				in.Tags = []string{}
			}
			r, err := b.Remember(ctx, in)
			if err != nil {
				return savedMsg{what: "create", err: err}
			}
			id := r.ID
			if id == "" && len(r.IDs) > 0 {
				id = r.IDs[0] // chunked: the first chunk
			}
			if id == "" {
				return savedMsg{what: "create", err: errors.New("remember: the answer has no id")}
			}
			return savedMsg{what: "created", id: id}
		}
		p := core.Patch{ID: base.ID, Reason: reason, IfVersion: &base.Version}
		if content != base.Content {
			p.Content = &content
		}
		if !slices.Equal(tags, base.Tags) && !(len(tags) == 0 && len(base.Tags) == 0) {
			if tags == nil {
				tags = []string{}
			}
			p.Tags = &tags
		}
		if typ != "" && typ != base.Type {
			p.Type = &typ
		}
		if imp != nil && fmtImportance(*imp) != fmtImportance(base.Importance) {
			p.Importance = imp
		}
		if pinned != base.Pinned {
			p.Pinned = &pinned
		}
		if project != base.Project {
			p.Project = &project
		}
		if p.Content == nil && p.Tags == nil && p.Type == nil && p.Importance == nil && p.Pinned == nil && p.Project == nil {
			return savedMsg{what: "nothing changed in", id: base.ID}
		}
		_, err := b.Modify(ctx, p)
		if errors.Is(err, core.ErrVersionConflict) {
			if cur, gerr := b.Get(ctx, base.ID, true); gerr == nil {
				return savedMsg{what: "save", id: base.ID, err: err, conflict: cur}
			}
		}
		if err != nil {
			return savedMsg{what: "save", id: base.ID, err: err}
		}
		return savedMsg{what: "saved", id: base.ID}
	}
}

func (f *form) view() string {
	st := f.st
	var b strings.Builder
	if f.base == nil {
		b.WriteString(st.Heading.Render("New memory"))
	} else {
		b.WriteString(st.Heading.Render(fmt.Sprintf("Edit %s", pane.ShortID(f.base.ID))) +
			st.Faint.Render(fmt.Sprintf("  version %d", f.base.Version)))
	}
	b.WriteString("\n")
	if c := f.conflict; c != nil {
		b.WriteString(st.Error.Render(fmt.Sprintf("Version conflict: %s changed it (now version %d). Stored content:", orDash(c.UpdatedBy), c.Version)) + "\n")
		lines := strings.Split(c.Content, "\n")
		if len(lines) > conflictLines {
			lines = append(lines[:conflictLines-1], "…")
		}
		for i := 0; i < conflictLines; i++ {
			l := ""
			if i < len(lines) {
				l = lines[i]
			}
			b.WriteString(st.Warning.Render("│ "+pane.Truncate(l, f.width-2)) + "\n")
		}
		b.WriteString(st.Faint.Render("Your text is kept below; ctrl+s saves it over version "+strconv.FormatInt(c.Version, 10)+", esc discards it.") + "\n")
	}
	b.WriteString(f.content.View() + "\n")
	b.WriteString(f.tags.View() + "\n")
	b.WriteString(f.typ.View() + "\n")
	b.WriteString(f.importance.View() + "\n")
	b.WriteString(f.project.View() + "\n")
	box := "[ ]"
	if f.pinned {
		box = "[x]"
	}
	pin := "pinned     " + box
	if f.focused == fieldPinned {
		b.WriteString(st.Accent.Render(pin) + st.Faint.Render("  space toggles") + "\n")
	} else {
		b.WriteString(st.Faint.Render(pin) + "\n")
	}
	if f.err != "" {
		b.WriteString(st.Error.Render(pane.Truncate(f.err, f.width)))
	}
	return lipgloss.NewStyle().MaxHeight(f.height).Render(b.String())
}

func orDash(s string) string {
	if s == "" {
		return "someone"
	}
	return s
}
