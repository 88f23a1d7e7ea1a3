package pane

import (
	"slices"
	"testing"
)

func TestFitKeepsTheTextRoomLesserColumnsFirst(t *testing.T) {
	cols := []Column{{Widths: []int{10, 5}, Rank: 1}, {Widths: []int{8}, Rank: 2}, {Widths: []int{4}, Rank: 0}}
	for _, tc := range []struct {
		width, minText int
		want           []int
	}{
		{100, 30, []int{10, 8, 4}}, // all in full
		{50, 30, []int{10, 0, 4}},  // the last ranked gives way
		{44, 30, []int{5, 0, 4}},   // then the next shrinks
		{36, 30, []int{0, 0, 4}},
		{20, 30, []int{0, 0, 0}},
	} {
		if got := Fit(tc.width, tc.minText, cols); !slices.Equal(got, tc.want) {
			t.Errorf("Fit(%d, %d) = %v, want %v", tc.width, tc.minText, got, tc.want)
		}
	}
}
