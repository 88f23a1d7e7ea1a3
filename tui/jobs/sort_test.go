package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corejobs "github.com/cairnmem/cairn/core/jobs"
	"github.com/cairnmem/cairn/core/wire"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
)

// TestJobsSort: o cycles the queue's order (live first, newest, oldest
// by last update, by type); the header says which, and a status filter
// keeps it.
func TestJobsSort(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {140, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: size[0], Height: size[1]})
			shelltest.PipelineFixture(h)
			// A job of another type, the newest: live first puts it among
			// the pending ones, by type after every extract job.
			err := h.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
				_, err := storage.EnqueueJob(context.Background(), tx, "0195a1b2-0000-7000-8000-0000000b0009", tuitest.IDTabs,
					corejobs.SessionExtract, "", 3, storage.FormatTime(tuitest.FixedNow.Add(-10*time.Second)))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
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
			if s := h.Screen(); !strings.Contains(s, "6 all jobs, live first") || order()[0] != tuitest.JobStale {
				t.Fatalf("the default order is not live first: %v\n%s", order(), s)
			}
			live := order()
			h.Press("o")
			if s := h.Screen(); !strings.Contains(s, "6 all jobs, newest first") {
				t.Fatalf("o:\n%s", s)
			}
			if u := updated(); !slices.IsSortedFunc(u, func(a, b string) int { return strings.Compare(b, a) }) || slices.Equal(order(), live) {
				t.Fatalf("newest first: %v", u)
			}
			h.Press("o")
			if s := h.Screen(); !strings.Contains(s, "6 all jobs, oldest first") {
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
			// By type: the types grouped (sorted), live first within each.
			h.Press("F", "o")
			if s := h.Screen(); !strings.Contains(s, "6 all jobs, by type, live first") {
				t.Fatalf("o a third time:\n%s", s)
			}
			if slices.Equal(order(), live) {
				t.Fatalf("by type is the live order: %v", order())
			}
			var types, want []string
			for _, j := range jobsPane(h).Jobs() {
				types = append(types, j.JobType)
			}
			for _, id := range live {
				for _, j := range jobsPane(h).Jobs() {
					if j.ID == id {
						want = append(want, j.JobType+" "+id)
					}
				}
			}
			slices.SortStableFunc(want, func(a, b string) int { return strings.Compare(strings.Fields(a)[0], strings.Fields(b)[0]) })
			var got []string
			for _, j := range jobsPane(h).Jobs() {
				got = append(got, j.JobType+" "+j.ID)
			}
			if !slices.IsSorted(types) || !slices.Equal(got, want) {
				t.Fatalf("by type: %v, want %v", got, want)
			}
			h.Press("o")
			if s := h.Screen(); !strings.Contains(s, "6 all jobs, live first") || !slices.Equal(order(), live) {
				t.Fatalf("o cycles back to live first: %v\n%s", order(), s)
			}
		})
	}
}
