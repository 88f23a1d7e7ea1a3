// Package tui is cairn's terminal UI. The root Model is a router: it owns
// the window size, the tab bar, focus, the global keys, the status bar and
// the help bar, and hands everything else to the active pane (tui/recall,
// tui/history, tui/jobs, tui/proposals; Diagnostics joins the tab list
// later).
// All I/O happens in tea.Cmds through a core/client.Client, in process or
// over HTTP, so Update never blocks.
package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/themes"
	"github.com/cairnmem/cairn/tui/diagnostics"
	"github.com/cairnmem/cairn/tui/history"
	"github.com/cairnmem/cairn/tui/jobs"
	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/learned"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/proposals"
	"github.com/cairnmem/cairn/tui/recall"
	"github.com/cairnmem/cairn/tui/styles"
)

// StatusInterval is how often the status bar re-reads counts and health
// when nothing else made it refresh.
const StatusInterval = 5 * time.Second

// refreshDelay coalesces a burst of changes (an import, a batch forget)
// into one reload of the panes.
const refreshDelay = 100 * time.Millisecond

// Options configure the UI.
type Options struct {
	// Client reaches cairn: client.Local in process, pane.Remote over the
	// API of the cairn that holds the database (client mode).
	Client client.Client
	// Addr is where this process serves the API, shown in the status bar
	// while Client is in process; a remote client shows its own address.
	Addr string
	// Theme is the chosen theme; nil picks dark or light from the
	// terminal's background.
	Theme *themes.Theme
	// Version is shown in the tab bar.
	Version string
	// Now replaces the clock (tests pin it).
	Now func() time.Time
	// Clock makes the UI's timers and its wait for live changes; nil is
	// pane.RealClock. Tests put in a fake they can fire on demand.
	Clock pane.Clock
	// Project is the current project: the default of a new memory's
	// project field and the project the Recall pane's project filter
	// switches to. Empty means none (new memories belong to no project).
	Project string
	// Types are the memory types a person may pick in the form: the
	// built-in ones and memory.extra_types (core.Types); nil is the
	// built-in ones.
	Types []string
}

// Messages of the shell.
type (
	// StatusMsg carries a fresh status (tests send fixed ones).
	StatusMsg struct {
		Status pane.Status
		Err    error
	}
	statusTickMsg struct{}
	changeMsg     struct {
		change pane.Change
		ok     bool
	}
	refreshMsg    struct{}
	noticeExpired struct{ seq int }
)

// Model is the root model.
type Model struct {
	ctx      *pane.Context
	panes    []pane.Pane
	active   int
	keys     keys.Global
	help     help.Model
	spin     spinner.Model
	spinning bool

	width, height int
	autoTheme     bool
	version       string
	addr          string // Options.Addr

	status    pane.Status
	statusErr error
	notice    string
	noticeErr bool
	noticeSeq int
	// helpTop is the first line of the full help shown (it scrolls when
	// it does not fit).
	helpTop int

	// palette is the open command palette, nil when closed.
	palette *palette
	// learned is the Learned view (L in Recall), shown in place of the
	// Recall pane while learnedOpen.
	learned     *learned.Model
	learnedOpen bool

	changes        <-chan pane.Change
	stopChanges    func()
	refreshPending bool
	pendingChange  pane.Change
}

// New returns the root model.
func New(o Options) *Model {
	th := o.Theme
	if th == nil {
		th = themes.MustBuiltin(themes.DefaultDark)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	clock := o.Clock
	if clock == nil {
		clock = pane.RealClock{}
	}
	// Every value the panes get is sanitized for the terminal as it
	// arrives (pane.Safe).
	ctx := &pane.Context{Client: pane.Safe(o.Client), Styles: styles.New(th), Now: now, Clock: clock, Project: o.Project, Types: o.Types}
	m := &Model{
		ctx:       ctx,
		keys:      keys.DefaultGlobal(),
		help:      help.New(),
		autoTheme: o.Theme == nil,
		version:   o.Version,
		addr:      o.Addr,
		// The tab list, in number-key order.
		panes:   []pane.Pane{recall.New(ctx), history.New(ctx), jobs.New(ctx), diagnostics.New(ctx), proposals.New(ctx)},
		learned: learned.New(ctx),
	}
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.applyStyles()
	m.width, m.height = 80, 24
	m.layout()
	return m
}

func (m *Model) applyStyles() {
	m.help.Styles = m.ctx.Styles.Help
	m.spin.Style = m.ctx.Styles.Accent
	for _, p := range m.panes {
		p.ApplyStyles()
	}
	m.learned.ApplyStyles()
}

// SetTheme switches the theme (and turns off choosing from the background).
func (m *Model) SetTheme(t *themes.Theme) {
	m.autoTheme = false
	m.ctx.Styles = styles.New(t)
	m.applyStyles()
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchStatus(), m.tickStatus()}
	if m.autoTheme {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, p := range m.panes {
		cmds = append(cmds, p.Init())
	}
	cmds = append(cmds, m.show(m.active, true))
	if m.ctx.Client != nil {
		m.changes, m.stopChanges = pane.Changes(pane.Unwrap(m.ctx.Client))
		cmds = append(cmds, m.waitChange())
	}
	return tea.Batch(cmds...)
}

// Close ends the change subscription.
func (m *Model) Close() {
	if m.stopChanges != nil {
		m.stopChanges()
	}
}

// waitChange blocks (in its own goroutine, as every Cmd does) until the
// next write anywhere; Update re-issues it after each one.
func (m *Model) waitChange() tea.Cmd {
	ch := m.changes
	return m.ctx.Clock.Wait(func() tea.Msg {
		c, ok := <-ch
		return changeMsg{change: c, ok: ok}
	})
}

func (m *Model) fetchStatus() tea.Cmd {
	c, addr := m.ctx.Client, m.addr
	if c == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := pane.Snapshot(ctx, c, addr)
		return StatusMsg{Status: st, Err: err}
	}
}

func (m *Model) tickStatus() tea.Cmd {
	return m.ctx.Clock.Tick(StatusInterval, func(time.Time) tea.Msg { return statusTickMsg{} })
}

// Active returns the index of the active pane.
func (m *Model) Active() int { return m.active }

// ShowingFullHelp reports whether the full help is open.
func (m *Model) ShowingFullHelp() bool { return m.help.ShowAll }

// Pane returns pane i (tests look inside).
func (m *Model) Pane(i int) pane.Pane { return m.panes[i] }

// Learned returns the Learned view and whether it is open (tests look
// inside).
func (m *Model) Learned() (*learned.Model, bool) { return m.learned, m.learnedOpen }

// current is what has the body and the keys: the active pane, or the
// Learned view open over Recall.
func (m *Model) current() pane.Pane {
	if m.learnedOpen {
		return m.learned
	}
	return m.panes[m.active]
}

// Notice is the status bar's one-line outcome of the last action, and
// whether it reports an error.
func (m *Model) Notice() (text string, isErr bool) { return m.notice, m.noticeErr }

// helpView is the hint line: the pane's most useful keys, then the
// global ones that must always show (? keys, q quit; ctrl+c quit while a
// text field has the keyboard). The pane's least important hints give way
// first when the line is narrow.
func (m *Model) helpView() string {
	p := m.current()
	if p.Capturing() {
		// Global keys are off while typing; only ctrl+c still quits.
		return shortHelp(m.ctx.Styles.Help, m.width, p.ShortHelp(), []key.Binding{ctrlC})
	}
	if m.help.ShowAll {
		var scroll []key.Binding
		if len(m.fullHelp()) > m.bodyHeight() {
			scroll = append(scroll, helpScroll)
		}
		return shortHelp(m.ctx.Styles.Help, m.width, scroll, []key.Binding{m.keys.Back, m.keys.Quit})
	}
	optional := append(p.ShortHelp(), m.keys.NextTab)
	return shortHelp(m.ctx.Styles.Help, m.width, optional, []key.Binding{m.keys.Help, m.keys.Quit})
}

// helpScroll is shown while the full help is open.
var helpScroll = key.NewBinding(key.WithKeys("j", "k", "down", "up"), key.WithHelp("↑/↓", "scroll"))

// fullHelpLines is the full help of the active pane: the global keys
// first, then the pane's groups, laid out in columns that fit the width.
func (m *Model) fullHelp() []string {
	g := m.keys
	groups := []helpGroup{{title: "Global", keys: []key.Binding{g.Palette, g.NextTab, g.PrevTab, g.Tab1, clickTab, g.Help, g.Back, g.Quit}}}
	for i, keys := range m.current().FullHelp() {
		title := m.current().Title()
		if i > 0 {
			title = ""
		}
		groups = append(groups, helpGroup{title: title, keys: keys})
	}
	if m.active == 0 && !m.learnedOpen {
		groups = append(groups, helpGroup{keys: []key.Binding{learned.OpenKey}})
	}
	return fullHelpLines(m.ctx.Styles.Help, m.ctx.Styles.Heading, m.width, groups)
}

// clickTab documents that a click on a tab switches to it.
var clickTab = key.NewBinding(key.WithKeys("\x00click"), key.WithHelp("click", "a tab: go to it"))

// bodyHeight is the rows between the tab bar and the status bar.
func (m *Model) bodyHeight() int {
	h := m.height - 3 // tab bar, status bar, hint line (always one line)
	if m.notice != "" {
		h-- // the notice has its own line above the status bar
	}
	return max(3, h)
}

func (m *Model) layout() {
	m.help.SetWidth(m.width)
	h := m.bodyHeight()
	for _, p := range m.panes {
		p.SetSize(m.width, h)
	}
	m.learned.SetSize(m.width, h)
}

func (m *Model) switchTo(i int) tea.Cmd {
	if i == m.active && m.learnedOpen {
		m.learnedOpen = false // the number of the pane under it: back to it
		return nil
	}
	if i < 0 || i >= len(m.panes) || i == m.active {
		return nil
	}
	hide := m.show(m.active, false)
	m.active = i
	m.learnedOpen = false
	// A notice is about the pane it came from: it does not follow.
	m.notice, m.noticeErr = "", false
	m.noticeSeq++
	m.layout()
	return tea.Batch(hide, m.show(i, true))
}

// show tells pane i it is (or is no longer) on screen, if it cares.
func (m *Model) show(i int, shown bool) tea.Cmd {
	if s, ok := m.panes[i].(pane.Shown); ok {
		return s.SetShown(shown)
	}
	return nil
}

// Busy reports work in flight in any pane (the status bar's spinner
// turns).
func (m *Model) Busy() bool {
	if m.learned.Busy() {
		return true
	}
	for _, p := range m.panes {
		if p.Busy() {
			return true
		}
	}
	return false
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// Start the spinner when work begins; it stops itself when idle.
	if m.Busy() && !m.spinning {
		m.spinning = true
		cmd = tea.Batch(cmd, m.spin.Tick)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return nil
	case tea.BackgroundColorMsg:
		if m.autoTheme {
			name := themes.DefaultDark
			if !msg.IsDark() {
				name = themes.DefaultLight
			}
			m.ctx.Styles = styles.New(themes.MustBuiltin(name))
			m.applyStyles()
		}
		return nil
	case spinner.TickMsg:
		if !m.Busy() {
			m.spinning = false
			return nil
		}
		// The spinner advances a frame; its next frame is timed by the
		// clock rather than by the tea.Tick the spinner would return.
		m.spin, _ = m.spin.Update(msg)
		id := m.spin.ID()
		return m.ctx.Clock.Tick(m.spin.Spinner.FPS, func(t time.Time) tea.Msg { return spinner.TickMsg{ID: id, Time: t} })
	case StatusMsg:
		m.status, m.statusErr = msg.Status, msg.Err
		return nil
	case statusTickMsg:
		return tea.Batch(m.fetchStatus(), m.tickStatus())
	case pane.RefreshStatusMsg:
		return m.fetchStatus()
	case changeMsg:
		if !msg.ok {
			return nil // subscription ended
		}
		cmds := []tea.Cmd{m.waitChange()}
		if !m.refreshPending {
			m.refreshPending = true
			m.pendingChange = msg.change
			cmds = append(cmds, m.ctx.Clock.Tick(refreshDelay, func(time.Time) tea.Msg { return refreshMsg{} }))
		} else if m.pendingChange.MemoryID != msg.change.MemoryID {
			m.pendingChange = pane.Change{} // several memories: refresh all
		}
		return tea.Batch(cmds...)
	case refreshMsg:
		m.refreshPending = false
		cmds := []tea.Cmd{m.fetchStatus()}
		for _, p := range m.panes {
			cmds = append(cmds, p.Refresh(m.pendingChange))
		}
		cmds = append(cmds, m.learned.Refresh(m.pendingChange))
		return tea.Batch(cmds...)
	case pane.NoticeMsg:
		had := m.notice != ""
		m.notice, m.noticeErr = msg.Text, msg.Err != nil
		if msg.Err != nil {
			m.notice = msg.Text + ": " + msg.Err.Error()
		}
		m.noticeSeq++
		if had != (m.notice != "") {
			m.layout()
		}
		if m.notice == "" || m.noticeErr {
			return nil // errors stay until the next outcome replaces them
		}
		seq := m.noticeSeq
		return m.ctx.Clock.Tick(pane.FlashTTL, func(time.Time) tea.Msg { return noticeExpired{seq: seq} })
	case noticeExpired:
		if msg.seq == m.noticeSeq && m.notice != "" {
			m.notice = ""
			m.layout()
		}
		return nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		return m.click(msg)
	case tea.MouseWheelMsg:
		if m.help.ShowAll {
			m.scrollHelp(pane.WheelCursor(msg, 0))
			return nil
		}
		return m.current().Update(msg)
	case tea.PasteMsg:
		return m.current().Update(msg)
	case learned.StateMsg:
		if msg.State != nil {
			m.status.Learned = msg.State.Count
		}
	}
	// Anything else belongs to a pane (results, blinks, ticks): panes
	// ignore message types that are not theirs.
	cmds := []tea.Cmd{m.learned.Update(msg)}
	for _, p := range m.panes {
		cmds = append(cmds, p.Update(msg))
	}
	return tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	p := m.current()
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if m.palette != nil {
		return m.paletteKey(msg)
	}
	if p.Capturing() {
		return p.Update(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Palette):
		m.help.ShowAll = false
		return m.openPalette()
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.helpTop = 0
		m.layout()
		return nil
	case key.Matches(msg, m.keys.Back) && m.help.ShowAll:
		m.help.ShowAll = false
		m.layout()
		return nil
	case m.help.ShowAll && key.Matches(msg, helpScroll):
		d := 1
		if msg.String() == "k" || msg.String() == "up" {
			d = -1
		}
		m.scrollHelp(d)
		return nil
	case key.Matches(msg, m.keys.NextTab):
		return m.switchTo((m.active + 1) % len(m.panes))
	case key.Matches(msg, m.keys.PrevTab):
		return m.switchTo((m.active + len(m.panes) - 1) % len(m.panes))
	}
	for i, b := range m.keys.Tabs() {
		if key.Matches(msg, b) {
			return m.switchTo(i)
		}
	}
	if m.help.ShowAll {
		return nil // the help covers the pane: its keys wait until it closes
	}
	switch {
	case m.learnedOpen && !p.Nested() && key.Matches(msg, m.keys.Back):
		m.learnedOpen = false
		return nil
	case !m.learnedOpen && m.active == 0 && !p.Nested() && key.Matches(msg, learned.OpenKey):
		m.learnedOpen = true
		m.layout()
		return m.learned.Open()
	}
	return p.Update(msg)
}

// scrollHelp moves the full help by d lines, within its length.
func (m *Model) scrollHelp(d int) {
	n := len(m.fullHelp())
	m.helpTop = max(0, min(m.helpTop+d, n-m.bodyHeight()))
}

// click switches to the tab under a left click on the tab bar; other
// clicks are ignored (the panes are driven by keys).
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || msg.Y != 0 {
		return nil
	}
	if i := m.tabAt(msg.X); i >= 0 {
		if m.panes[m.active].Capturing() {
			return nil // a text field or a prompt has the keyboard: do not leave it behind
		}
		m.help.ShowAll = false
		m.layout()
		return m.switchTo(i)
	}
	return nil
}

// tabAt is the tab drawn at column x of the tab bar, or -1.
func (m *Model) tabAt(x int) int {
	pos := 0
	for i, p := range m.panes {
		w := lipgloss.Width(tabLabel(i, p.Title()))
		if x >= pos && x < pos+w {
			return i
		}
		pos += w + 1 // the separator
	}
	return -1
}

func tabLabel(i int, title string) string { return fmt.Sprintf(" %d %s ", i+1, title) }

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "cairn"
	return v
}

// Render is the whole screen as a string (View wraps it; golden tests
// compare it).
func (m *Model) Render() string {
	var body string
	switch {
	case m.palette != nil:
		body = m.paletteView()
	case m.help.ShowAll:
		body = m.helpBody()
	default:
		body = m.current().View()
	}
	rows := []string{m.tabsView(), body}
	if m.notice != "" {
		rows = append(rows, m.noticeView())
	}
	rows = append(rows, m.statusView(), m.helpView())
	screen := lipgloss.JoinVertical(lipgloss.Left, rows...)
	return lipgloss.NewStyle().MaxWidth(m.width).MaxHeight(m.height).Render(screen)
}

func (m *Model) tabsView() string {
	st := m.ctx.Styles
	var parts []string
	for i, p := range m.panes {
		label := tabLabel(i, p.Title())
		if i == m.active {
			parts = append(parts, st.TabActive.Render(label))
		} else {
			parts = append(parts, st.TabInactive.Render(label))
		}
	}
	left := strings.Join(parts, st.Rule.Render("│"))
	right := "cairn"
	if m.version != "" {
		right += " " + m.version
	}
	right = st.Faint.Render(right + " ")
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

// helpBody is the full help in place of the pane, scrolled to helpTop.
func (m *Model) helpBody() string {
	lines := m.fullHelp()
	h := m.bodyHeight()
	top := max(0, min(m.helpTop, len(lines)-h))
	lines = lines[top:]
	if len(lines) > h {
		lines = append(lines[:h-1], m.ctx.Styles.Faint.Render("… more below (↓/j)"))
	}
	return lipgloss.NewStyle().Width(m.width).Height(h).MaxHeight(h).Render(strings.Join(lines, "\n"))
}

// noticeView is the line of the last action's outcome, above the status
// bar (so it never covers what the status bar says).
func (m *Model) noticeView() string {
	st := m.ctx.Styles
	text := pane.Truncate(" "+pane.CleanLine(m.notice), m.width)
	if m.noticeErr {
		return st.Error.Render(text)
	}
	return st.Success.Render(text)
}

// statusView shows what is known about the service; unknown parts are
// left out rather than guessed. The right end (health, the spinner, a
// status error) is never cut: the segments on the left give way.
func (m *Model) statusView() string {
	st := m.ctx.Styles
	s := m.status
	var segs []string
	add := func(label, v string) {
		if v != "" {
			segs = append(segs, label+v)
		}
	}
	// Where you are comes first, so it is the last to be cut: serving the
	// API from this process (owning the store), or a client of the
	// cairn that owns it.
	if s.Addr != "" {
		where := "serving "
		if c := m.ctx.Client; c != nil && c.Addr() != "" {
			where = "client of "
		}
		add(where, s.Addr+" ("+orUnknown(s.AuthMode)+" auth)")
	}
	if s.Health != "" {
		segs = append(segs, fmt.Sprintf("%d memories", s.Memories))
		if s.QueueKnown {
			segs = append(segs, fmt.Sprintf("queue %d", s.Queue))
		}
	}
	add("pipeline ", s.Pipeline)
	add("embed ", s.Embedding)
	left := " " + strings.Join(segs, " │ ")
	// What waits for a person comes first and in the warning style, so it
	// survives truncation and catches the eye.
	var warns []string
	if s.DeadJobs > 0 {
		warns = append(warns, fmt.Sprintf("%d dead jobs", s.DeadJobs))
	}
	pending := s.PendingProposals
	if c, ok := m.panes[m.active].(pane.PendingCounter); ok {
		if n, known := c.PendingProposals(); known {
			pending = n // the pane on screen says how many: the bar says the same
		}
	}
	if pending > 0 {
		warns = append(warns, fmt.Sprintf("%d proposals pending", pending))
	}
	if s.Learned > 0 {
		warns = append(warns, fmt.Sprintf("%d learned since you last looked (L)", s.Learned))
	}
	warn := ""
	if len(warns) > 0 {
		warn = " " + strings.Join(warns, " · ") + " │"
	}
	var right string
	if m.spinning {
		right = m.spin.View() + " "
	}
	if s.Health != "" {
		right += s.Health + " "
	}
	if right != "" {
		right = st.StatusBar.Render("│ " + right)
	}
	if m.statusErr != nil {
		right = st.StatusErr.Render(pane.Truncate("status: "+m.statusErr.Error(), max(10, m.width/2)) + " ")
	}
	warn = pane.Truncate(warn, max(0, m.width-lipgloss.Width(right)))
	left = pane.Truncate(left, max(0, m.width-lipgloss.Width(right)-lipgloss.Width(warn)))
	gap := max(0, m.width-lipgloss.Width(warn)-lipgloss.Width(left)-lipgloss.Width(right))
	if warn != "" {
		warn = st.StatusWarn.Render(warn)
	}
	return warn + st.StatusBar.Render(left+strings.Repeat(" ", gap)) + right
}

// ctrlC is shown in the help while a text field has the keyboard.
var ctrlC = key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit"))

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Run runs the UI until the user quits or ctx ends. Ending by ctx (SIGTERM)
// is not an error.
func Run(ctx context.Context, o Options, opts ...tea.ProgramOption) error {
	m := New(o)
	defer m.Close()
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
