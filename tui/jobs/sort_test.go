package jobs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

// TestJobsSort: o cycles the queue's order (live first, newest, oldest
// by last update); the header says which, and a status filter keeps it.
func TestJobsSort(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: size[0], Height: size[1]})
			shelltest.PipelineFixture(h)
			h.Press("3")
			order := func() []string {
				var out []string
				for _, j := range jobsPane(h).Jobs() {
					out = append(out, j.ID)
				}
				return out
			}
			updated := func() []string {
				var out []string
				for _, j := range jobsPane(h).Jobs() {
					out = append(out, j.UpdatedAt+" "+j.ID)
				}
				return out
			}
			if s := h.Screen(); !strings.Contains(s, "5 all jobs, live first") || order()[0] != tuitest.JobStale {
				t.Fatalf("the default order is not live first: %v\n%s", order(), s)
			}
			live := order()
			h.Press("o")
			if s := h.Screen(); !strings.Contains(s, "5 all jobs, newest first") {
				t.Fatalf("o:\n%s", s)
			}
			if u := updated(); !slices.IsSortedFunc(u, func(a, b string) int { return strings.Compare(b, a) }) || slices.Equal(order(), live) {
				t.Fatalf("newest first: %v", u)
			}
			h.Press("o")
			if s := h.Screen(); !strings.Contains(s, "5 all jobs, oldest first") {
				t.Fatalf("o again:\n%s", s)
			}
			if u := updated(); !slices.IsSorted(u) {
				t.Fatalf("oldest first: %v", u)
			}
			h.Press("f") // pending only: the order stays
			if s := h.Screen(); !strings.Contains(s, "pending jobs, oldest first") {
				t.Fatalf("a filter drops the order:\n%s", s)
			}
			for _, j := range jobsPane(h).Jobs() {
				if j.Status != wire.JobPending {
					t.Fatalf("f lists a %s job", j.Status)
				}
			}
			h.Press("F", "o")
			if s := h.Screen(); !strings.Contains(s, "5 all jobs, live first") || !slices.Equal(order(), live) {
				t.Fatalf("o cycles back to live first: %v\n%s", order(), s)
			}
		})
	}
}
