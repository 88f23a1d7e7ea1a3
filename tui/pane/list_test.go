package pane

import (
	"fmt"
	"testing"
)

// rows makes n rows named from first down (newest first), with cursors
// that compare in list order.
func rows(first, n int) ([]string, []string) {
	var r, c []string
	for i := range n {
		v := first - i
		r = append(r, fmt.Sprintf("r%04d", v))
		c = append(c, fmt.Sprintf("2026|%020d", v))
	}
	return r, c
}

func newTestList(h int) List[string] {
	l := NewList(func(s string) string { return s })
	l.SetHeight(h)
	return l
}

func TestListPagesDownToTheEnd(t *testing.T) {
	l := newTestList(10)
	r, c := rows(250, PageRows)
	l.Reset(r, c, 250, false)
	if got := l.Head("events", "newest first"); got != "250 events, newest first · 1 of 250" {
		t.Fatalf("head: %q", got)
	}
	if l.Want() != WantNothing {
		t.Fatalf("a list at its top wants %v", l.Want())
	}
	l.MoveBy(60)
	if l.Want() != WantBelow {
		t.Fatalf("near the end of the window: want %v", l.Want())
	}
	l.Loading(WantBelow)
	if l.Want() != WantNothing {
		t.Fatal("a second load while one is in flight")
	}
	r, c = rows(150, PageRows)
	l.Below(r, c, false)
	r, c = rows(50, 50)
	l.Below(r, c, true)
	l.Bottom()
	if s, _ := l.Selected(); s != "r0001" || l.Position() != "250 of 250" {
		t.Fatalf("bottom: %q at %q", s, l.Position())
	}
}

func TestListBottomAsksForTheLastPage(t *testing.T) {
	l := newTestList(10)
	r, c := rows(250, PageRows)
	l.Reset(r, c, 250, false)
	l.Bottom()
	if l.Want() != WantLast {
		t.Fatalf("G on a partial list wants %v", l.Want())
	}
	l.Loading(WantLast)
	r, c = rows(PageRows, PageRows)
	l.ResetLast(r, c)
	if s, _ := l.Selected(); s != "r0001" || l.Position() != "250 of 250" || l.AtHead() {
		t.Fatalf("last page: %q at %q head %v", s, l.Position(), l.AtHead())
	}
	// Going up past the window's top reads the page above, keeping the
	// cursor on its row.
	l.MoveBy(-60)
	sel, _ := l.Selected()
	if l.Want() != WantAbove {
		t.Fatalf("near the window's top: want %v", l.Want())
	}
	l.Loading(WantAbove)
	r, c = rows(250, 150)
	l.Above(r, c, true)
	if s, _ := l.Selected(); s != sel || !l.AtHead() || l.Position() != "190 of 250" {
		t.Fatalf("above: %q (was %q) at %q", s, sel, l.Position())
	}
	l.Top()
	if s, _ := l.Selected(); s != "r0250" {
		t.Fatalf("top: %q", s)
	}
}

func TestListCountsRowsArrivingAbove(t *testing.T) {
	l := newTestList(5)
	r, c := rows(20, 20)
	l.Reset(r, c, 20, true)
	l.MoveBy(8)
	sel, _ := l.Selected()
	row := l.Cursor() - l.Offset()
	r, c = rows(23, 3)
	l.Arrived(r, c, false)
	if s, _ := l.Selected(); s != sel || l.Cursor()-l.Offset() != row {
		t.Fatalf("the selection moved: %q row %d", s, l.Cursor()-l.Offset())
	}
	if l.NewAboveText() != "3 new ↑ g" || l.Total() != 23 {
		t.Fatalf("notice %q total %d", l.NewAboveText(), l.Total())
	}
	// The same rows again (a page read while they arrived) count once.
	l.Arrived(r, c, false)
	if l.NewAbove() != 3 {
		t.Fatalf("counted twice: %d", l.NewAbove())
	}
	l.Top()
	if l.NewAbove() != 0 {
		t.Fatal("seeing the top keeps the notice")
	}
	// At the top the list follows the newest.
	r, c = rows(24, 1)
	l.Arrived(r, c, false)
	if s, _ := l.Selected(); s != "r0024" || l.NewAbove() != 0 {
		t.Fatalf("following: %q, %d new", s, l.NewAbove())
	}
}

func TestListSpliceDropsRowsGone(t *testing.T) {
	l := newTestList(5)
	r, c := rows(10, 10)
	l.Reset(r, c, 10, true)
	l.MoveBy(3) // r0007
	r, c = rows(10, 10)
	r = append(r[:3:3], r[4:]...)
	c = append(c[:3:3], c[4:]...)
	l.Splice(l.FirstCursor(), r, c, false)
	if s, _ := l.Selected(); s != "r0006" || l.Total() != 9 {
		t.Fatalf("after a row went: %q, total %d", s, l.Total())
	}
}

func TestListReplaceByOffset(t *testing.T) {
	l := NewList(func(s string) string { return s })
	l.SetHeight(2)
	l.Reset([]string{"c", "b", "a"}, nil, 3, true)
	l.MoveBy(1)
	l.Replace([]string{"e", "d", "c", "b", "a"}, 5, true)
	if s, _ := l.Selected(); s != "b" || l.NewAbove() != 2 {
		t.Fatalf("replace: %q, %d new", s, l.NewAbove())
	}
}

func TestListMarks(t *testing.T) {
	l := newTestList(5)
	r, c := rows(5, 5)
	l.Reset(r, c, 5, true)
	l.ToggleMark()
	l.MoveBy(2)
	l.ToggleMark()
	l.MoveBy(-2)
	l.ToggleMark()
	if got := l.MarkedRows(); l.MarkCount() != 1 || len(got) != 1 || got[0] != "r0003" {
		t.Fatalf("marks: %v", got)
	}
	l.ClearMarks()
	if l.MarkCount() != 0 {
		t.Fatal("marks kept")
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1: "-1"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestListCountedAboveShiftsPositions(t *testing.T) {
	l := newTestList(10)
	r, c := rows(PageRows, PageRows)
	l.Reset(r, c, 250, false)
	l.Bottom()
	l.Loading(WantLast)
	l.ResetLast(r, c) // the last 100 of 250
	pos := l.Position()
	l.CountedAbove(2)
	if l.Position() != "252 of 252" || pos != "250 of 250" || l.NewAboveText() != "2 new ↑ g" {
		t.Fatalf("after 2 arrived above: %q (was %q), %q", l.Position(), pos, l.NewAboveText())
	}
}

// TestListArrivedBelowFollowsOrCounts: in a list whose newest rows come
// last, rows arriving at the end are followed from the last row and
// counted ("N new ↓ G") from elsewhere until the end is seen; below an
// end that is not loaded, the total counts them.
func TestListArrivedBelowFollowsOrCounts(t *testing.T) {
	asc := func(first, n int) ([]string, []string) {
		var r, c []string
		for i := range n {
			r = append(r, fmt.Sprintf("r%04d", first+i))
			c = append(c, fmt.Sprintf("2026|%020d", first+i))
		}
		return r, c
	}
	l := newTestList(10)
	l.Ascending = true
	r, c := asc(1, 30)
	l.Reset(r, c, 30, true)
	l.Bottom()
	r, c = asc(31, 2)
	l.ArrivedBelow(r, c, false)
	if s, _ := l.Selected(); s != "r0032" || l.NewAboveText() != "" || l.Position() != "32 of 32" {
		t.Fatalf("on the last row: %q, %q, %q", s, l.NewAboveText(), l.Position())
	}
	l.MoveBy(-15)
	r, c = asc(33, 3)
	l.ArrivedBelow(r, c, false)
	if s, _ := l.Selected(); s != "r0017" || l.NewAboveText() != "3 new ↓ G" || l.Position() != "17 of 35" {
		t.Fatalf("scrolled up: %q, %q, %q", s, l.NewAboveText(), l.Position())
	}
	l.Bottom()
	if l.NewAboveText() != "" {
		t.Fatalf("the end seen, still %q", l.NewAboveText())
	}

	l = newTestList(10)
	l.Ascending = true
	r, c = asc(1, PageRows)
	l.Reset(r, c, 500, false)
	l.CountedBelow(4)
	if l.NewAboveText() != "4 new ↓ G" || l.Position() != "1 of 504" {
		t.Fatalf("below an unloaded end: %q, %q", l.NewAboveText(), l.Position())
	}
}
