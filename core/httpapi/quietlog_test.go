package httpapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loggedAPI serves the API over a fresh store with its log at level.
func loggedAPI(t *testing.T, level slog.Level) (*httptest.Server, *syncBuffer) {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "log.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}))
	ap := app.New(db, config.DefaultConfig(), app.Options{Logger: log})
	ts := httptest.NewServer(httpapi.NewAPI(ap, "test", "").Handler())
	t.Cleanup(ts.Close)
	return ts, logs
}

// MCP over HTTP at the default level logs nothing per request (the SDK's
// routine lines were three INFO lines each); at DEBUG each request is one
// line with its method, path, status and duration.
func TestMCPRequestsAreQuietAtInfo(t *testing.T) {
	ctx := context.Background()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		ts, logs := loggedAPI(t, level)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "log-agent", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_list", Arguments: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
		}
		cs.Close()
		out := logs.String()
		if level == slog.LevelInfo {
			if strings.TrimSpace(out) != "" {
				t.Fatalf("MCP requests logged at INFO:\n%s", out)
			}
			continue
		}
		var requests int
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "msg=http ") && strings.Contains(line, "path=/mcp") {
				requests++
				for _, want := range []string{"level=DEBUG", "method=POST", "status=", "ms="} {
					if !strings.Contains(line, want) {
						t.Errorf("request line without %s: %s", want, line)
					}
				}
			}
		}
		if requests < 4 { // initialize, initialized, three calls
			t.Fatalf("%d request lines at DEBUG:\n%s", requests, out)
		}
	}
}
