package recall_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/tui/internal/shelltest"
	"github.com/cairnmem/cairn/tui/internal/tuitest"
	"github.com/cairnmem/cairn/tui/pane"
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
