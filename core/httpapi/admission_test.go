package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// TestAdmissionRefusesWhenBusy checks the admission limit through the real
// handler: with every read turn taken, a search waits server.queue_timeout
// and gets 503 "overloaded" with Retry-After; /health and writes (turns
// of their own) still answer; once the turn is given back, searches are
// served again.
func TestAdmissionRefusesWhenBusy(t *testing.T) {
	e := apitest.NewEnv(t, func(c *config.Config) {
		c.Server.MaxConcurrent = 1
		c.Server.QueueTimeout = config.Duration(50 * time.Millisecond)
	})
	e.MustID(t, "the held request finds this")
	// The first search takes the only read turn and holds it while its
	// body has not arrived.
	pr, pw := io.Pipe()
	defer pw.Close() // a failed test must not leave the request hanging
	req, err := http.NewRequest(http.MethodPost, e.Srv.URL+"/api/memory/recall", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	first := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			first <- nil
			return
		}
		first <- resp
	}()
	if _, err := pw.Write([]byte(`{"query": "held `)); err != nil {
		t.Fatal(err)
	}
	// Wait until the held request has its turn: a second one is refused.
	var refused *http.Response
	for range 200 {
		resp, err := http.Post(e.Srv.URL+"/api/memory/recall", "application/json", strings.NewReader(`{"query": "refused while busy"}`))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusServiceUnavailable {
			refused = resp
			break
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("second request: HTTP %d", resp.StatusCode)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if refused == nil {
		t.Fatal("no request was refused while the only turn was taken")
	}
	var body map[string]any
	if err := json.NewDecoder(refused.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	refused.Body.Close()
	if body["code"] != "overloaded" || body["error"] == "" || refused.Header.Get("Retry-After") != "1" {
		t.Fatalf("refusal: %v, Retry-After %q", body, refused.Header.Get("Retry-After"))
	}
	e.Get(t, "/health").Want(t, http.StatusOK) // never held back
	// Writes take turns of their own: searches queued do not refuse them.
	e.Post(t, "/api/memory/remember", map[string]any{"content": "written while searches wait"}).Want(t, http.StatusOK)
	// The held request completes; the turn is free again.
	if _, err := pw.Write([]byte(`request"}`)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	resp := <-first
	if resp == nil {
		t.FailNow()
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("held request: HTTP %d", resp.StatusCode)
	}
	e.Post(t, "/api/memory/recall", map[string]any{"query": "served after the turn came back"}).Want(t, http.StatusOK)
}
