package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/transfer"
)

// clients returns a Local and an HTTP client over one real store.
func clients(t *testing.T, set func(*config.Config)) (*api, map[string]client.Client) {
	t.Helper()
	a := newAPI(t, set)
	return a, map[string]client.Client{
		"local": client.Local(a.app, client.LocalOptions{Actor: tester}),
		"http":  client.HTTP(a.addr, client.Options{Actor: tester}),
	}
}

// Both clients answer a remember alike: the memory's fields, the chunks
// of a long one, a dedup, and the answer as the API sends it.
func TestRememberBothClients(t *testing.T) {
	a, cs := clients(t, func(c *config.Config) { c.Guardrails.MaxContentChars, c.Guardrails.ChunkTargetChars = 300, 150 })
	ctx := context.Background()
	for name, c := range cs {
		t.Run(name, func(t *testing.T) {
			imp := 0.7
			text := "the " + name + " client stores release notes in docs/releases"
			r, err := c.Remember(ctx, core.RememberInput{Content: text, Tags: []string{"docs", "release"}, Importance: &imp})
			if err != nil || r.ID == "" || r.Chunked || r.Deduped || len(r.Tags) != 2 || r.Importance != 0.7 || r.Type == "" {
				t.Fatalf("remember: %+v %v", r, err)
			}
			var raw map[string]any
			if err := json.Unmarshal(r.Raw, &raw); err != nil || raw["id"] != r.ID || raw["embedding"] == nil {
				t.Fatalf("raw answer %s: %v", r.Raw, err)
			}
			m, err := a.svc.Get(ctx, r.ID, false)
			if err != nil || m.UpdatedBy != tester.Name {
				t.Fatalf("stored: %+v %v", m, err)
			}
			again, err := c.Remember(ctx, core.RememberInput{Content: text})
			if err != nil || !again.Deduped || again.ID != r.ID {
				t.Fatalf("dedup: %+v %v", again, err)
			}
			var long strings.Builder
			for i := range 12 {
				fmt.Fprintf(&long, "Note %d of the %s client says step %d of the release runs after step %d. ", i, name, i+1, i)
			}
			ch, err := c.Remember(ctx, core.RememberInput{Content: long.String()})
			if err != nil || !ch.Chunked || len(ch.IDs) < 2 || ch.GroupID == "" || ch.ID != "" {
				t.Fatalf("chunked: %+v %v", ch, err)
			}
		})
	}
}

// Both clients report the status the status bar reads.
func TestStatusBothClients(t *testing.T) {
	a, cs := clients(t, nil)
	ctx := context.Background()
	if _, err := a.svc.Remember(ctx, core.RememberInput{Content: "one memory for the counts"}, tester); err != nil {
		t.Fatal(err)
	}
	for name, c := range cs {
		st, err := c.Status(ctx)
		if err != nil || st.AuthMode != "local" || st.Pipeline.Mode == "" || st.Memories.Total != 1 || st.Queue == nil ||
			st.Counts.Memories != 1 || st.Embedding.Provider == "" {
			t.Fatalf("%s status: %+v %v", name, st, err)
		}
		if err := c.Health(ctx); err != nil {
			t.Fatalf("%s health: %v", name, err)
		}
	}
}

// Both clients import checked lines, the HTTP one in chunks, with progress
// up to every line.
func TestImportBothClients(t *testing.T) {
	from := newAPI(t, nil)
	ctx := context.Background()
	for _, s := range []string{"imported memory about caching", "imported memory about queues"} {
		if _, err := from.svc.Remember(ctx, core.RememberInput{Content: s}, tester); err != nil {
			t.Fatal(err)
		}
	}
	var lines []transfer.ImportLine
	raw := map[int][]byte{}
	err := from.app.Transfer.Export(ctx, core.MemoryFilter{}, func(r *transfer.ExportRecord) error {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		n := len(lines) + 1
		lines, raw[n] = append(lines, transfer.ImportLine{Line: n, Memory: *r.Memory}), b
		return nil
	})
	if err != nil || len(lines) != 2 {
		t.Fatalf("export: %d %v", len(lines), err)
	}
	_, cs := clients(t, nil)
	for name, c := range cs {
		done := 0
		res, err := c.Import(ctx, lines, raw, func(n int) { done = n })
		if err != nil || res.Imported+res.Existing != 2 || done != 2 {
			t.Fatalf("%s import: %+v %v (progress %d)", name, res, err, done)
		}
	}
}

// What a client says it reaches, and how a holder that does not answer is
// named.
func TestDescribeAndUnreachableHolder(t *testing.T) {
	a := newAPI(t, nil)
	closed := false
	l := client.Local(a.app, client.LocalOptions{Actor: tester, Close: func() error { closed = true; return nil }})
	if l.Describe() != "database "+a.db.Path() || l.Addr() != "" {
		t.Fatalf("local: %q %q", l.Describe(), l.Addr())
	}
	if err := l.Close(); err != nil || !closed {
		t.Fatalf("local close: %v %v", err, closed)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := client.HTTP(addr, client.Options{PID: 42})
	if r.Describe() != "the running cairn (pid 42) at http://"+addr {
		t.Fatalf("describe: %q", r.Describe())
	}
	_, err = r.Get(context.Background(), "x", false)
	want := "cairn (pid 42) holds the database but its API at http://" + addr + " does not answer: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("unreachable holder: %v", err)
	}
	if _, err := r.Modify(context.Background(), core.Patch{ID: "x"}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("unreachable holder, a change: %v", err)
	}
	if res, err := r.Forget(context.Background(), core.ForgetInput{ID: "x"}); res != nil || err == nil {
		t.Fatalf("a change that got no answer has no result: %+v %v", res, err)
	}
	if got := client.HTTP(addr, client.Options{}).Describe(); got != "the running cairn at http://"+addr {
		t.Fatalf("describe without a pid: %q", got)
	}
}
