package pane

import "slices"

// Column is one optional column of a list's rows: the widths it can take,
// widest first, and its rank (lower ranks are kept first).
type Column struct {
	Widths []int
	Rank   int
}

// Fit picks each column's width (0: dropped) so that the text after the
// columns, which takes what is left of width, keeps at least minText
// cells: columns are taken in rank order, each at its widest width that
// leaves the text its room, so the lesser columns shrink or give way
// first. A column is followed by one space.
func Fit(width, minText int, cols []Column) []int {
	out := make([]int, len(cols))
	order := make([]int, len(cols))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cols[a].Rank - cols[b].Rank })
	room := width
	for _, i := range order {
		for _, w := range cols[i].Widths {
			if w > 0 && room-(w+1) >= minText {
				out[i] = w
				room -= w + 1
				break
			}
		}
	}
	return out
}

// MinText is the room a list keeps for its text at width: half the width
// on a narrow terminal, at most most.
func MinText(width, most int) int {
	return min(most, max(12, width/2))
}
