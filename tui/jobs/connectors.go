package jobs

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/pane"
)

// The connectors view of the Jobs pane (c): every connector with its
// state, re-read with the queue's poll while it is shown, and a sync of
// the selected one on s.

// connView is the connectors view's state.
type connView struct {
	shown   bool
	seq     int
	loading bool
	loaded  bool
	err     error
	list    []*wire.Connector
	cursor  int
	offset  int
	// syncing are the connectors this pane is syncing now: they show
	// "syncing" before the next read says so.
	syncing map[string]bool
}

type (
	connLoadedMsg struct {
		seq  int
		list []*wire.Connector
		err  error
	}
	syncedMsg struct {
		id, name string
		res      *wire.SyncResult
		err      error
	}
)

// Connectors returns the loaded connectors (tests look inside).
func (m *Model) Connectors() []*wire.Connector { return m.conn.list }

// ShowingConnectors reports whether the connectors view is shown.
func (m *Model) ShowingConnectors() bool { return m.conn.shown }

func (m *Model) loadConnectors(user bool) tea.Cmd {
	m.conn.seq++
	if user {
		m.conn.loading = true
	}
	seq, b := m.conn.seq, m.ctx.Client
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		list, err := b.Connectors(ctx)
		return connLoadedMsg{seq: seq, list: list, err: err}
	}
}

// Rows of the connectors view above and below the list: the title, the
// message line, the column heads; a blank line and the selected
// connector's root, last sync and last error.
const connChrome = 3 + 4

func (m *Model) connListHeight() int { return max(1, m.height-connChrome) }

func (m *Model) clampConn() {
	m.conn.cursor, m.conn.offset = pane.Scroll(m.conn.cursor, m.conn.offset, len(m.conn.list), m.connListHeight())
}

func (m *Model) selectedConn() *wire.Connector {
	if m.conn.cursor < len(m.conn.list) {
		return m.conn.list[m.conn.cursor]
	}
	return nil
}

// connUpdate handles the connectors view's messages.
func (m *Model) connUpdate(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case connLoadedMsg:
		if msg.seq != m.conn.seq {
			return nil, true
		}
		m.conn.loading, m.conn.err = false, msg.err
		if msg.err != nil {
			return tea.Batch(m.flash.Set("connectors: "+msg.err.Error(), true), pane.Fail("connectors", msg.err)), true
		}
		keep := ""
		if c := m.selectedConn(); c != nil {
			keep = c.ID
		}
		m.conn.list, m.conn.loaded = msg.list, true
		m.conn.cursor = 0
		for i, c := range m.conn.list {
			if c.ID == keep {
				m.conn.cursor = i
			}
		}
		m.clampConn()
		return nil, true
	case syncedMsg:
		m.acting = false
		delete(m.conn.syncing, msg.id)
		var cmds []tea.Cmd
		if m.conn.shown {
			cmds = append(cmds, m.loadConnectors(false))
		}
		if msg.err != nil {
			text := "sync " + msg.name + ": " + msg.err.Error()
			if msg.res != nil {
				text = fmt.Sprintf("sync %s failed after %s: %v", msg.name, syncCounts(msg.res), msg.err)
			}
			return tea.Batch(append(cmds, m.flash.Set(text, true), pane.Fail("sync "+msg.name, msg.err))...), true
		}
		text := fmt.Sprintf("synced %s: %s", msg.name, syncCounts(msg.res))
		if msg.res != nil && msg.res.Skipped > 0 {
			text += fmt.Sprintf(", %d skipped", msg.res.Skipped)
		}
		if msg.res != nil && msg.res.Seen > 0 {
			text += fmt.Sprintf(" (%d files seen)", msg.res.Seen)
		}
		return tea.Batch(append(cmds, m.flash.Set(text, false))...), true
	}
	return nil, false
}

// syncCounts is a sync's added, changed and removed files.
func syncCounts(r *wire.SyncResult) string {
	if r == nil {
		return "nothing"
	}
	return fmt.Sprintf("%d added, %d changed, %d removed", r.Added, r.Changed, r.Removed)
}

// connKey handles a key in the connectors view.
func (m *Model) connKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Queue) || msg.String() == "esc":
		m.conn.shown = false
		return m.load(true)
	case key.Matches(msg, m.keys.Sync):
		return m.syncSelected()
	case pane.IsMove(m.list, msg):
		m.conn.cursor, _ = pane.MoveCursor(m.list, msg, m.conn.cursor, len(m.conn.list), m.connListHeight())
		m.clampConn()
	}
	return nil
}

func (m *Model) syncSelected() tea.Cmd {
	c := m.selectedConn()
	if c == nil {
		return m.flash.Set("no connector to sync: list folders in connectors.roots", false)
	}
	if m.conn.syncing[c.ID] {
		return m.flash.Set(c.DisplayName+" is syncing already", false)
	}
	if m.conn.syncing == nil {
		m.conn.syncing = map[string]bool{}
	}
	m.conn.syncing[c.ID] = true
	m.acting = true
	m.flash.Clear()
	b, id, name := m.ctx.Client, c.ID, c.DisplayName
	return func() tea.Msg {
		ctx, cancel := pane.CallContext()
		defer cancel()
		res, err := b.SyncConnector(ctx, id)
		return syncedMsg{id: id, name: name, res: res, err: err}
	}
}

// connRoot is a connector's folder (its config's root), sanitized: the
// config is raw JSON the client does not clean.
func connRoot(c *wire.Connector) string {
	var cfg struct {
		Root string `json:"root"`
	}
	if len(c.Config) > 0 {
		_ = json.Unmarshal(c.Config, &cfg)
	}
	return pane.CleanLine(cfg.Root)
}

func (m *Model) connStatus(c *wire.Connector) string {
	if m.conn.syncing[c.ID] {
		return wire.ConnectorSyncing
	}
	return c.Status
}

func (m *Model) statusStyle(status string) lipgloss.Style {
	st := m.ctx.Styles
	switch status {
	case wire.ConnectorError:
		return st.Error
	case wire.ConnectorSyncing:
		return st.Accent
	case wire.ConnectorIdle:
		return st.Success
	}
	return st.Text
}

// Column widths of the connectors view.
const (
	colConnName   = 16
	colConnStatus = 8
	colConnFiles  = 6
	colConnSync   = 9
)

// lastSync is when a connector last synced, relative ("5m ago").
func (m *Model) lastSync(c *wire.Connector) string {
	if c.LastSyncAt == "" {
		return "never"
	}
	a := pane.Age(m.ctx.Now(), c.LastSyncAt)
	if a == "now" || a == "?" || strings.Contains(a, "-") {
		return a
	}
	return a + " ago"
}

func (m *Model) connectorsView() string {
	st := m.ctx.Styles
	var b strings.Builder
	title := "Connectors"
	switch {
	case m.conn.err != nil && !m.conn.loaded:
		title += " · unavailable"
	case !m.conn.loaded:
		title += " · loading…"
	default:
		title += fmt.Sprintf(" (%d)", len(m.conn.list))
	}
	b.WriteString(st.Heading.Render(title) + st.Faint.Render(pane.Truncate(" · folders of connectors.roots, kept in step", max(0, m.width-lipgloss.Width(title)))) + "\n")
	b.WriteString(m.messageLine() + "\n")
	b.WriteString(st.Faint.Render(pane.Truncate("  "+pane.Pad("name", colConnName)+" "+pane.Pad("status", colConnStatus)+" "+
		pane.Pad("files", colConnFiles)+" "+pane.Pad("synced", colConnSync)+" root", m.width)))
	if len(m.conn.list) == 0 && m.conn.loaded {
		b.WriteString("\n" + st.Faint.Render(pane.Truncate("No connectors. List folders in the config file's [connectors] roots", m.width)))
		b.WriteString("\n" + st.Faint.Render(pane.Truncate("and restart cairn: each becomes a connector, synced while cairn runs.", m.width)))
		return b.String()
	}
	end := min(len(m.conn.list), m.conn.offset+m.connListHeight())
	for i := m.conn.offset; i < end; i++ {
		b.WriteString("\n" + m.connRow(m.conn.list[i], i == m.conn.cursor))
	}
	if c := m.selectedConn(); c != nil {
		field := func(name, v string, style lipgloss.Style) {
			b.WriteString("\n" + st.Faint.Render(pane.Pad(name, 8)) + style.Render(pane.OneLine(v, max(5, m.width-8))))
		}
		b.WriteString("\n")
		field("root", connRoot(c), st.Text)
		sync := m.lastSync(c)
		if c.LastSyncAt != "" {
			sync = c.LastSyncAt + " (" + sync + ")"
		}
		field("synced", fmt.Sprintf("%s · %d files · %s", sync, c.Files, c.Provider), st.Text)
		if c.LastError != "" {
			field("error", c.LastError, st.Error)
		} else {
			field("error", "none", st.Faint)
		}
	}
	return b.String()
}

func (m *Model) connRow(c *wire.Connector, selected bool) string {
	st := m.ctx.Styles
	marker := "  "
	if selected {
		marker = "› "
	}
	status := m.connStatus(c)
	name := marker + pane.Pad(c.DisplayName, colConnName) + " "
	rest := " " + pane.Pad(fmt.Sprintf("%d", c.Files), colConnFiles) + " " + pane.Pad(m.lastSync(c), colConnSync) + " "
	used := lipgloss.Width(name) + colConnStatus + lipgloss.Width(rest)
	root := pane.OneLine(connRoot(c), max(5, m.width-used))
	if selected {
		return st.Selected.Render(pane.Pad(name+pane.Pad(status, colConnStatus)+rest+root, m.width))
	}
	line := st.Text.Render(name) + m.statusStyle(status).Render(pane.Pad(status, colConnStatus)) + st.Text.Render(rest+root)
	if w := lipgloss.Width(line); w < m.width {
		line += strings.Repeat(" ", m.width-w)
	}
	return line
}
