package pane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/cairnmem/cairn/tui/keys"
	"github.com/cairnmem/cairn/tui/styles"
)

// PageRows is how many rows a list reads at a time.
const PageRows = 100

// List is what a pane shows of a long list: a window of loaded rows
// (pages read as the cursor comes near an end, so every row is reachable
// while only what was looked at is held), the cursor and the first row on
// screen, the total when known, the rows marked for a bulk action, and how
// many rows arrived above since the person last looked at the top.
//
// A list is either by cursor (each row has the cursor its page returned:
// memories, audit events; pages are read from any row, and a refresh
// re-reads what is on screen) or by offset (jobs, proposals, search
// results; a refresh re-reads the window from the top). The pane reads;
// the List says what to read next (Want) and takes what arrives.
type List[T any] struct {
	key func(T) string

	rows    []T
	cursors []string // by cursor: rows[i]'s; nil for a list by offset
	start   int      // rows[0]'s index in the whole list, when known
	exact   bool     // start is known
	total   int      // -1 while unknown
	head    bool     // rows[0] is the list's first row
	tail    bool     // the last row is the list's last
	cur     int      // the cursor, an index into rows
	off     int      // the first row on screen
	height  int

	// Ascending says a list by cursor is shown oldest first (its cursors
	// grow down the list).
	Ascending bool

	// newAbove counts rows that arrived above the screen since the
	// person last saw the top; newBelow, in a list whose newest rows come
	// last (Ascending), those that arrived below it since the person last
	// saw the end.
	newAbove, newBelow int
	// want is a jump asked for (g, G) and not yet read; inflight the
	// load the pane has asked for.
	want, inflight Want
	marks          map[string]T
	order          []string // marked keys in the order they were marked
}

// Want is what a List needs read next.
type Want int

// What a List asks for.
const (
	WantNothing Want = iota
	WantBelow        // the page below the last row
	WantAbove        // the page above the first row
	WantFirst        // the list's first page (g from a window below it)
	WantLast         // the list's last page (G)
)

// NewList returns an empty list whose rows are told apart by key.
func NewList[T any](key func(T) string) List[T] {
	return List[T]{key: key, total: -1, exact: true, head: true}
}

// SetHeight sets how many rows show at once.
func (l *List[T]) SetHeight(h int) {
	l.height = max(1, h)
	l.clamp()
}

// Len is the number of loaded rows.
func (l *List[T]) Len() int { return len(l.rows) }

// Rows are the loaded rows.
func (l *List[T]) Rows() []T { return l.rows }

// Row is loaded row i.
func (l *List[T]) Row(i int) T { return l.rows[i] }

// CursorOf is loaded row i's cursor ("" in a list by offset).
func (l *List[T]) CursorOf(i int) string {
	if i < 0 || i >= len(l.cursors) {
		return ""
	}
	return l.cursors[i]
}

// FirstCursor and LastCursor are the window's ends (the pages next to it
// start there).
func (l *List[T]) FirstCursor() string { return l.CursorOf(0) }

// LastCursor is the last loaded row's cursor.
func (l *List[T]) LastCursor() string { return l.CursorOf(len(l.rows) - 1) }

// Cursor is the selected row's index among the loaded rows.
func (l *List[T]) Cursor() int { return l.cur }

// Offset is the first row on screen.
func (l *List[T]) Offset() int { return l.off }

// Total is how many rows the list has, -1 while unknown.
func (l *List[T]) Total() int { return l.total }

// SetTotal records how many rows the list has (a count that arrived on
// its own).
func (l *List[T]) SetTotal(n int) {
	l.total = n
	if l.tail && l.head {
		l.total = len(l.rows)
	}
}

// AtHead and AtTail report whether the list's first and last rows are
// loaded.
func (l *List[T]) AtHead() bool { return l.head }

// Following reports whether the cursor is on the list's first row (a
// refresh there follows the newest rows).
func (l *List[T]) Following() bool { return l.head && l.cur == 0 && l.off == 0 }

// AtTail reports whether the list's last row is loaded.
func (l *List[T]) AtTail() bool { return l.tail }

// Selected is the row under the cursor.
func (l *List[T]) Selected() (T, bool) {
	var zero T
	if l.cur < 0 || l.cur >= len(l.rows) {
		return zero, false
	}
	return l.rows[l.cur], true
}

// Select puts the cursor on the row with key k, if loaded.
func (l *List[T]) Select(k string) bool {
	for i, r := range l.rows {
		if l.key(r) == k {
			l.cur = i
			l.clamp()
			return true
		}
	}
	return false
}

// NewAbove is how many rows arrived above the screen unseen.
func (l *List[T]) NewAbove() int { return l.newAbove }

// NewBelow is how many rows arrived below the screen unseen (a list
// whose newest rows come last).
func (l *List[T]) NewBelow() int { return l.newBelow }

// Reset replaces the list with its first page (a new query); with cursors
// for a list by cursor, nil for one by offset.
func (l *List[T]) Reset(rows []T, cursors []string, total int, tail bool) {
	l.rows, l.cursors = rows, cursors
	l.start, l.exact, l.head, l.tail = 0, true, true, tail
	l.cur, l.off, l.newAbove, l.newBelow, l.want, l.inflight = 0, 0, 0, 0, WantNothing, WantNothing
	l.total = total
	if tail {
		l.total = len(rows)
	}
	l.clamp()
}

// ResetLast replaces the list with its last page (G), the cursor on the
// last row.
func (l *List[T]) ResetLast(rows []T, cursors []string) {
	l.rows, l.cursors = rows, cursors
	l.tail, l.want, l.inflight, l.newAbove, l.newBelow = true, WantNothing, WantNothing, 0, 0
	l.head = l.total >= 0 && len(rows) >= l.total
	l.start, l.exact = max(0, l.total-len(rows)), l.total >= 0
	l.cur = len(rows) - 1
	l.off = max(0, len(rows)-l.height)
	l.clamp()
}

// Below adds the page read below the last row; tail says it is the
// list's end.
func (l *List[T]) Below(rows []T, cursors []string, tail bool) {
	l.inflight = WantNothing
	rows, cursors = l.fresh(rows, cursors)
	l.rows = append(l.rows, rows...)
	if l.cursors != nil || cursors != nil {
		l.cursors = append(l.cursors, cursors...)
	}
	l.tail = tail
	if tail && l.exact {
		l.total = l.start + len(l.rows)
	}
	l.clamp()
}

// Above adds the page read above the first row, keeping the cursor on its
// row and the screen on its rows; head says it reaches the list's first
// row.
func (l *List[T]) Above(rows []T, cursors []string, head bool) {
	l.inflight = WantNothing
	rows, cursors = l.fresh(rows, cursors)
	n := len(rows)
	l.rows = append(append([]T{}, rows...), l.rows...)
	if l.cursors != nil || cursors != nil {
		l.cursors = append(append([]string{}, cursors...), l.cursors...)
	}
	l.cur += n
	l.off += n
	l.start -= n
	l.head = head
	if head {
		l.start, l.exact = 0, true
	}
	l.clamp()
}

// Arrived takes rows that are new above the first row (a live refresh of
// a list by cursor at its head); full says there may be more. At the top
// the list follows the newest (the cursor on the first row); elsewhere the
// cursor and the screen stay on their rows and the arrivals are counted.
func (l *List[T]) Arrived(rows []T, cursors []string, full bool) {
	rows, cursors = l.fresh(rows, cursors)
	n := len(rows)
	if n == 0 {
		return
	}
	following := l.cur == 0 && l.off == 0
	l.rows = append(append([]T{}, rows...), l.rows...)
	if l.cursors != nil || cursors != nil {
		l.cursors = append(append([]string{}, cursors...), l.cursors...)
	}
	if l.total >= 0 {
		l.total += n
	}
	if full {
		// More arrived than a page: the window no longer reaches the top.
		l.head, l.exact = false, false
	}
	if !following {
		l.cur += n
		l.off += n
		l.newAbove += n
	}
	l.clamp()
}

// CountedAbove takes how many rows arrived (or, negative, went) above a
// window that does not reach the list's top, learned from a new total:
// the positions shift and the arrivals are counted.
func (l *List[T]) CountedAbove(n int) {
	if n == 0 || l.head {
		return
	}
	l.start += n
	if l.total >= 0 {
		l.total += n
	}
	if n > 0 {
		l.newAbove += n
	}
}

// FollowingTail reports whether the cursor is on the list's last row (a
// refresh there of a list whose newest rows come last follows them).
func (l *List[T]) FollowingTail() bool {
	return l.tail && len(l.rows) > 0 && l.cur == len(l.rows)-1
}

// ArrivedBelow takes rows that are new below the last row: a live refresh
// of a list whose newest rows come last (Ascending), read at its end; full
// says there may be more. On the last row the list follows the newest
// (the cursor moves to the new last row); elsewhere the cursor and the
// screen stay on their rows and the arrivals are counted ("3 new ↓ G").
func (l *List[T]) ArrivedBelow(rows []T, cursors []string, full bool) {
	rows, cursors = l.fresh(rows, cursors)
	n := len(rows)
	if n == 0 {
		return
	}
	following := l.FollowingTail()
	l.rows = append(l.rows, rows...)
	if l.cursors != nil || cursors != nil {
		l.cursors = append(l.cursors, cursors...)
	}
	if l.total >= 0 {
		l.total += n
	}
	if full {
		l.tail = false // more arrived than a page: the end is not loaded
	}
	if following {
		l.cur = len(l.rows) - 1
	} else {
		l.newBelow += n
	}
	l.clamp()
}

// CountedBelow takes how many rows arrived (or, negative, went) below a
// window that does not reach the list's end, learned from a new total:
// the arrivals are counted.
func (l *List[T]) CountedBelow(n int) {
	if n == 0 || l.tail {
		return
	}
	if l.total >= 0 {
		l.total += n
	}
	if n > 0 {
		l.newBelow += n
	}
}

// Splice replaces the loaded rows from the one at cursor from (included)
// with rows, a re-read of that stretch (a live refresh of what is on
// screen, in a list by cursor); full says the re-read stopped at its
// limit, not at the list's end. The cursor stays on its row, or (the row
// gone) on the row now in its place.
func (l *List[T]) Splice(from string, rows []T, cursors []string, full bool) {
	i := 0
	for i < len(l.cursors) && before(l.cursors[i], from, l) {
		i++
	}
	j := len(l.rows)
	if full && len(cursors) > 0 {
		last := cursors[len(cursors)-1]
		j = i
		for j < len(l.cursors) && !before(last, l.cursors[j], l) {
			j++
		}
	}
	keep, selected := "", l.cur
	if r, ok := l.Selected(); ok {
		keep = l.key(r)
	}
	removed := j - i
	l.rows = append(append(append([]T{}, l.rows[:i]...), rows...), l.rows[j:]...)
	l.cursors = append(append(append([]string{}, l.cursors[:i]...), cursors...), l.cursors[j:]...)
	if !full {
		l.tail = true
		if l.exact {
			l.total = l.start + len(l.rows)
		}
	} else if l.total >= 0 {
		l.total += len(rows) - removed
	}
	if keep == "" || !l.Select(keep) {
		l.cur = selected
	}
	l.clamp()
}

// before reports whether cursor a comes before b in the list (newest
// first: the larger cursor first). Lists oldest first set Ascending.
func before[T any](a, b string, l *List[T]) bool {
	if l.Ascending {
		return a < b
	}
	return a > b
}

// Replace is a live refresh of a list by offset: rows re-read from the
// top (as many as were loaded) and the total. At the top the list
// follows the newest; elsewhere the cursor and the screen stay on their
// rows, and rows new above them are counted.
func (l *List[T]) Replace(rows []T, total int, tail bool) {
	seen := make(map[string]bool, len(l.rows))
	for _, r := range l.rows {
		seen[l.key(r)] = true
	}
	following := l.cur == 0 && l.off == 0
	keep, row := "", l.cur-l.off
	if r, ok := l.Selected(); ok {
		keep = l.key(r)
	}
	selected := l.cur
	l.rows, l.cursors, l.total, l.tail = rows, nil, total, tail
	l.head, l.start, l.exact = true, 0, true
	if tail {
		l.total = len(rows)
	}
	if following || keep == "" {
		l.cur, l.off = 0, 0
		if !following {
			l.cur = selected
		}
		l.clamp()
		return
	}
	if !l.Select(keep) {
		l.cur = selected // the row is gone: the one now in its place
		l.clamp()
		return
	}
	for _, r := range rows[:l.cur] {
		if !seen[l.key(r)] {
			l.newAbove++
		}
	}
	l.off = max(0, l.cur-row)
	l.clamp()
}

// fresh drops rows already loaded (a page read while rows arrived).
func (l *List[T]) fresh(rows []T, cursors []string) ([]T, []string) {
	if len(l.rows) == 0 {
		return rows, cursors
	}
	have := make(map[string]bool, len(l.rows))
	for _, r := range l.rows {
		have[l.key(r)] = true
	}
	var outR []T
	var outC []string
	for i, r := range rows {
		if have[l.key(r)] {
			continue
		}
		outR = append(outR, r)
		if i < len(cursors) {
			outC = append(outC, cursors[i])
		}
	}
	return outR, outC
}

// Move applies a list key (up, down, pages, top, bottom); ok is false for
// any other key. A move near a window's end asks for the next page (Want).
func (l *List[T]) Move(k keys.List, msg tea.KeyPressMsg) (ok bool) {
	switch {
	case key.Matches(msg, k.Up):
		l.MoveBy(-1)
	case key.Matches(msg, k.Down):
		l.MoveBy(1)
	case key.Matches(msg, k.PageUp):
		l.MoveBy(-l.height)
	case key.Matches(msg, k.PageDown):
		l.MoveBy(l.height)
	case key.Matches(msg, k.Top):
		l.Top()
	case key.Matches(msg, k.Bottom):
		l.Bottom()
	default:
		return false
	}
	return true
}

// MoveBy moves the cursor d rows (the wheel, the keys).
func (l *List[T]) MoveBy(d int) {
	l.cur += d
	l.clamp()
}

// Top goes to the first row: at once when it is loaded, else by asking
// for the first page. Seeing the top clears the count of new rows.
func (l *List[T]) Top() {
	if !l.head {
		l.want = WantFirst
		return
	}
	l.cur, l.off, l.newAbove = 0, 0, 0
}

// Bottom goes to the last row: at once when it is loaded, else by asking
// for the last page.
func (l *List[T]) Bottom() {
	if !l.tail {
		l.want = WantLast
		return
	}
	l.cur = len(l.rows) - 1
	l.clamp()
}

// Want is the load the list asks for now; the pane reads it and calls
// Loading, then hands the page to Below, Above, Reset or ResetLast.
func (l *List[T]) Want() Want {
	switch {
	case l.inflight != WantNothing:
		return WantNothing // one load at a time
	case l.want != WantNothing:
		return l.want
	case !l.tail && len(l.rows) > 0 && l.cur >= len(l.rows)-max(l.height, PageRows/2):
		return WantBelow
	case !l.head && len(l.rows) > 0 && l.cur < max(l.height, PageRows/2):
		return WantAbove
	}
	return WantNothing
}

// Loading records that the pane asked for w.
func (l *List[T]) Loading(w Want) { l.inflight, l.want = w, WantNothing }

// LoadFailed forgets a load in flight (it failed, or a new query made it
// stale; a later move asks again).
func (l *List[T]) LoadFailed() { l.inflight = WantNothing }

// ToggleMark marks the selected row for a bulk action, or unmarks it.
func (l *List[T]) ToggleMark() {
	r, ok := l.Selected()
	if !ok {
		return
	}
	if l.marks == nil {
		l.marks = map[string]T{}
	}
	k := l.key(r)
	if _, on := l.marks[k]; on {
		delete(l.marks, k)
		for i, o := range l.order {
			if o == k {
				l.order = append(l.order[:i:i], l.order[i+1:]...)
				break
			}
		}
		return
	}
	l.marks[k] = r
	l.order = append(l.order, k)
}

// Marked reports whether row r is marked.
func (l *List[T]) Marked(r T) bool {
	_, on := l.marks[l.key(r)]
	return on
}

// MarkCount is how many rows are marked.
func (l *List[T]) MarkCount() int { return len(l.marks) }

// MarkedRows are the marked rows in the order they were marked.
func (l *List[T]) MarkedRows() []T {
	out := make([]T, 0, len(l.order))
	for _, k := range l.order {
		out = append(out, l.marks[k])
	}
	return out
}

// ClearMarks unmarks every row.
func (l *List[T]) ClearMarks() { l.marks, l.order = nil, nil }

// Visible is the range of loaded rows on screen, [from, to).
func (l *List[T]) Visible() (from, to int) {
	return l.off, min(len(l.rows), l.off+l.height)
}

func (l *List[T]) clamp() {
	l.cur, l.off = Scroll(l.cur, l.off, len(l.rows), l.height)
	if l.off == 0 && l.head {
		l.newAbove = 0 // the top is on screen
	}
	if l.tail && l.off+l.height >= len(l.rows) {
		l.newBelow = 0 // the end is on screen
	}
}

// Position says where the cursor is in the whole list ("12 of 1,234",
// "12 of 300+" while the end is not read), or "" for an empty list.
func (l *List[T]) Position() string {
	if len(l.rows) == 0 {
		return ""
	}
	of := Count(l.total)
	if l.total < 0 {
		of = Count(l.start+len(l.rows)) + "+"
	}
	if !l.exact {
		return "… of " + of
	}
	return Count(l.start+l.cur+1) + " of " + of
}

// Head is a list's header: how many rows it has ("1,234 memories"), how
// they are ordered, and where the cursor is when the list is longer than
// the screen ("· 120 of 1,234").
func (l *List[T]) Head(noun, order string) string {
	n := l.total
	if n < 0 {
		n = l.start + len(l.rows)
	}
	head := Count(n)
	if l.total < 0 && !l.tail {
		head += "+"
	}
	if noun != "" {
		head += " " + noun
	}
	if order != "" {
		head += ", " + order
	}
	if len(l.rows) > l.height || !l.head || !l.tail {
		head += " · " + l.Position()
	}
	return head
}

// NewAboveText is the notice of rows that arrived out of sight: above
// ("3 new ↑ g") or, in a list whose newest rows come last, below ("3 new
// ↓ G"); "" when none did.
func (l *List[T]) NewAboveText() string {
	var parts []string
	if l.newAbove > 0 {
		parts = append(parts, fmt.Sprintf("%s new ↑ g", Count(l.newAbove)))
	}
	if l.newBelow > 0 {
		parts = append(parts, fmt.Sprintf("%s new ↓ G", Count(l.newBelow)))
	}
	return strings.Join(parts, " · ")
}

// Count renders n with thousands separators ("12,345").
func Count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ListHead is a list's header line: what it shows (faint, cut to fit)
// and, at the right, the notice of rows new above it (never cut: it is
// why the header is there).
func ListHead(st *styles.Styles, head, newAbove string, width int) string {
	if newAbove == "" {
		return st.Faint.Render(Truncate(head, width))
	}
	room := width - lipgloss.Width(newAbove) - 2
	if room < 8 {
		return st.Warning.Render(Truncate(newAbove, width))
	}
	head = Pad(Truncate(head, room), room)
	return st.Faint.Render(head) + "  " + st.Warning.Render(newAbove)
}
