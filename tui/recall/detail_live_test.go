package recall_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
	"github.com/cairnmem/cairn/tui/recall"
)

// TestRecallOpenMemoryFollowsChanges: a memory open in the detail view
// shows a change made elsewhere (recovered by another client, then
// another memory written right after it) without being reopened: its
// title loses "deleted" and its history gains the recovered event. In
// client mode the changes are learned by polling the API's history, where
// the second write hid the first before.
func TestRecallOpenMemoryFollowsChanges(t *testing.T) {
	remote := func(ap *app.App) client.Client {
		srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	}
	for _, tc := range []struct {
		name   string
		client func(ap *app.App) client.Client
		w, h   int
	}{
		{"in process 80x24", nil, 80, 24},
		{"in process 140x45", nil, 140, 45},
		{"client mode 80x24", remote, 80, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: tc.w, Height: tc.h, Client: tc.client})
			h.SelectRow("prefers tabs")
			h.Press("d")
			h.TypeText("obsolete")
			h.Press("enter")
			h.Press("D")
			h.SelectRow("prefers tabs")
			h.Press("enter", "G")
			if s := h.Screen(); !strings.Contains(s, "v2 · deleted") || !strings.Contains(s, "History (2)") {
				t.Fatalf("the deleted memory's detail:\n%s", s)
			}
			ctx, other := context.Background(), core.Actor{Name: "cli", Type: core.ActorOperator}
			if _, err := h.Svc.Recover(ctx, core.RecoverInput{ID: tuitest.IDTabs, Reason: "recovered elsewhere"}, other); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Svc.Remember(ctx, core.RememberInput{Content: "a note about something else"}, other); err != nil {
				t.Fatal(err)
			}
			if !h.PumpUntil(10*time.Second, func() bool { return strings.Contains(h.Screen(), "History (3)") }) {
				t.Fatalf("the open memory does not show the recovery:\n%s", h.Screen())
			}
			s := h.Screen()
			if !strings.Contains(s, "recovered cli (operator) · recovered elsewhere") || strings.Contains(s, "· deleted") || !strings.Contains(s, "v3") {
				t.Fatalf("the open memory after its recovery elsewhere:\n%s", s)
			}
		})
	}
}

// TestRecallOpenMemoryFollowsSilentChanges: an open memory shows changes
// that publish no event, read from its stamp on a tick while it is open:
// an access a recall counted, then an entity the linker linked. The
// detail keeps its scroll position; in process and in client mode (a TUI
// attached to a running cairn), at 80×24 and 140×45.
func TestRecallOpenMemoryFollowsSilentChanges(t *testing.T) {
	remote := func(ap *app.App) client.Client {
		srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
		t.Cleanup(srv.Close)
		return pane.Remote(strings.TrimPrefix(srv.URL, "http://"))
	}
	for _, tc := range []struct {
		name   string
		client func(ap *app.App) client.Client
		w, h   int
	}{
		{"in process 80x24", nil, 80, 24},
		{"in process 140x45", nil, 140, 45},
		{"client mode 80x24", remote, 80, 24},
		{"client mode 140x45", remote, 140, 45},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := shelltest.New(t, shelltest.Options{Width: tc.w, Height: tc.h, Client: tc.client})
			tuitest.GraphFixture(t, h.DB)
			h.SelectRow("prefers tabs")
			h.Press("enter", "j", "j")
			s := h.Screen()
			if !strings.Contains(s, "never") || strings.Contains(s, "staging · environment") {
				t.Fatalf("the detail before the changes:\n%s", s)
			}
			row := lineOf(s, "preference")
			if row < 0 {
				t.Fatalf("no type line:\n%s", s)
			}
			// A recall elsewhere counts an access: no event is published.
			events := h.Background()
			h.Svc.RecordAccess(context.Background(), []string{tuitest.IDTabs})
			if !h.PumpUntil(10*time.Second, func() bool { return strings.Contains(h.Screen(), "1 times, last") }) {
				t.Fatalf("the open memory does not show the access:\n%s", h.Screen())
			}
			if h.Background() != events {
				t.Fatalf("%d change events were delivered: the test is not of a silent change", h.Background()-events)
			}
			if s := h.Screen(); lineOf(s, "preference") != row {
				t.Fatalf("the detail scrolled (type on line %d, was %d):\n%s", lineOf(s, "preference"), row, s)
			}
			// The linker links an entity: no event either.
			err := h.DB.WriteTx(context.Background(), func(tx storage.Tx) error {
				_, err := storage.LinkMention(context.Background(), tx, tuitest.IDTabs, tuitest.EntStaging, "staging", 0.5)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !h.PumpUntil(10*time.Second, func() bool { return strings.Contains(h.Screen(), "staging · environment") }) {
				t.Fatalf("the open memory does not show the new entity:\n%s", h.Screen())
			}
			// Closed, the memory is no longer checked: no tick is left.
			h.Press("esc")
			h.Advance(5 * recall.StampInterval)
			n := len(h.Sent)
			h.Advance(5 * recall.StampInterval)
			for _, msg := range h.Sent[n:] {
				if strings.Contains(fmt.Sprintf("%T", msg), "stamp") {
					t.Fatalf("the stamp is still checked with the list shown: %T", msg)
				}
			}
		})
	}
}

// lineOf is the number of the screen's first line containing s, or -1.
func lineOf(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}
