package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// TestTrickledBodyIsCut: a client sending its body a byte at a time
// cannot hold a connection: server.read_timeout (1s here) cuts it with a
// 408 request_timeout, long before the body would have arrived, and
// nothing is stored.
func TestTrickledBodyIsCut(t *testing.T) {
	t.Parallel()
	e := apitest.NewStoreEnv(t, apitest.NoPipeline, func(c *config.Config) { c.Server.ReadTimeout = config.Duration(time.Second) })
	before := e.State(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpapi.NewAPI(e.App, "test", ln.Addr().String()).Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"content":"` + strings.Repeat("trickle ", 50) + `"}`
	fmt.Fprintf(conn, "POST /api/memory/remember HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		ln.Addr(), len(body))
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			close(answered)
			return
		}
		answered <- resp
	}()
	// One byte every 100 ms: the whole body would take over 40 s.
	sent := 0
	var resp *http.Response
trickle:
	for ; sent < len(body); sent++ {
		select {
		case resp = <-answered:
			break trickle
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := conn.Write([]byte{body[sent]}); err != nil {
			break
		}
	}
	if sent == len(body) {
		t.Fatal("the server read a trickled body to its end")
	}
	if resp == nil {
		resp = <-answered
	}
	if resp == nil {
		t.Fatalf("the connection was cut after %d of %d bytes without an answer", sent, len(body))
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusRequestTimeout || out["code"] != httpapi.CodeRequestTimeout {
		t.Fatalf("answer to a trickled body: %d %v", resp.StatusCode, out)
	}
	e.Unchanged(t, before)
}
