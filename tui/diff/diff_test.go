package diff

import (
	"strings"
	"testing"
)

func render(ls []Line) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString([]string{" ", "-", "+"}[l.Op] + l.Text + "\n")
	}
	return b.String()
}

func TestLines(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb", "a\nb", " a\n b\n"},
		{"created", "", "a\nb", "+a\n+b\n"},
		{"deleted", "a", "", "-a\n"},
		{"middle change", "a\nb\nc", "a\nx\nc", " a\n-b\n+x\n c\n"},
		{"insert", "a\nc", "a\nb\nc", " a\n+b\n c\n"},
		{"trailing newline ignored", "a\n", "a", " a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(Lines(tt.old, tt.new)); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestLinesHugeFallsBack(t *testing.T) {
	old := strings.Repeat("x\n", 3000) + "a"
	new := strings.Repeat("y\n", 3000) + "a"
	ls := Lines(old, new)
	if len(ls) != 6001 || ls[len(ls)-1].Op != Same {
		t.Fatalf("len %d", len(ls))
	}
}

// TestLinesRebuildsBothSides checks any diff's invariant: the same and
// removed lines give the old text, the same and added lines the new one,
// and the same lines are a longest common subsequence.
func TestLinesRebuildsBothSides(t *testing.T) {
	old, new := "a\nb\nc\nd\ne", "b\na\nd\nc\ne\nf"
	var o, n []string
	same := 0
	for _, l := range Lines(old, new) {
		if l.Op != Added {
			o = append(o, l.Text)
		}
		if l.Op != Removed {
			n = append(n, l.Text)
		}
		if l.Op == Same {
			same++
		}
	}
	if strings.Join(o, "\n") != old || strings.Join(n, "\n") != new || same != 3 {
		t.Fatalf("old %q new %q same %d", o, n, same)
	}
}
