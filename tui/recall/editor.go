package recall

import (
	tea "charm.land/bubbletea/v2"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/tui/styles"
)

// Editor is this pane's memory edit form for another view (the Learned
// view, tui/learned): the same fields, checks, save (a Modify against the
// version read) and version-conflict handling.
type Editor struct{ f *form }

// EditorSaved reports an Editor's save: What is "saved" or "nothing
// changed in"; Conflict holds the stored memory when the save lost a
// version race (the editor then shows it and saves over it next time).
type EditorSaved struct {
	What     string
	ID       string
	Err      error
	Conflict *core.Memory
}

// NewEditor opens the edit form on mem, w×h cells; types are the types
// it accepts (pane.Context.Types).
func NewEditor(mem *core.Memory, st *styles.Styles, types []string, w, h int) *Editor {
	e := &Editor{f: newEditForm(mem, st)}
	e.f.types = types
	e.f.setSize(w, h)
	return e
}

// Focus focuses the current field.
func (e *Editor) Focus() tea.Cmd { return e.f.focus() }

// Update passes keys and blinks to the focused field.
func (e *Editor) Update(msg tea.Msg) tea.Cmd { return e.f.update(msg) }

// SetSize resizes the form.
func (e *Editor) SetSize(w, h int) { e.f.setSize(w, h) }

// ApplyStyles re-reads the styles after a theme change.
func (e *Editor) ApplyStyles(st *styles.Styles) { e.f.applyStyles(st) }

// View renders the form.
func (e *Editor) View() string { return e.f.view() }

// Validate checks the fields; a problem is also shown in the form.
func (e *Editor) Validate() error {
	err := e.f.validate()
	e.f.err = ""
	if err != nil {
		e.f.err = err.Error()
	}
	return err
}

// Failed shows a failed save: the error in the form, and after a version
// conflict the stored memory, which the next save goes over.
func (e *Editor) Failed(msg EditorSaved) {
	if msg.Conflict != nil {
		e.f.conflict, e.f.base = msg.Conflict, msg.Conflict
		e.f.setSize(e.f.width, e.f.height)
	}
	if msg.Err != nil {
		e.f.err = msg.Err.Error()
	}
}

// Save writes the form through c with reason, as the Recall pane does.
func (e *Editor) Save(c client.Client, reason string) tea.Cmd {
	save := e.f.save(c, reason)
	return func() tea.Msg {
		s, _ := save().(savedMsg)
		return EditorSaved{What: s.what, ID: s.id, Err: s.err, Conflict: s.conflict}
	}
}
