package embedding

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// fakeVec is the deterministic vector the fake servers answer for text.
func fakeVec(text string, dim int) []float64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	v := make([]float64, dim)
	for i := range v {
		seed = seed*6364136223846793005 + 1442695040888963407
		v[i] = float64(int64(seed>>11)%2001-1000) / 1000 // in [-1, 1], exact in float32 up to rounding
	}
	return v
}

// wantVecs checks got against fakeVec for each text.
func wantVecs(t *testing.T, got [][]float32, texts []string, dim int) {
	t.Helper()
	if len(got) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		want := fakeVec(text, dim)
		if len(got[i]) != dim {
			t.Fatalf("vector %d: length %d, want %d", i, len(got[i]), dim)
		}
		for j := range want {
			if got[i][j] != float32(want[j]) {
				t.Fatalf("vector %d (%q) differs at %d: got %v want %v (order lost?)", i, text, j, got[i][j], want[j])
			}
		}
	}
}

func numberedTexts(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory %d: we deploy on Fridays", i)
	}
	return texts
}

// recorder is a fake server that records requests and answers through a
// handler.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

type call struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func (r *recorder) add(req *http.Request) call {
	b, _ := io.ReadAll(req.Body)
	c := call{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: b}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return c
}

func (r *recorder) list() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func (r *recorder) count(path string) int {
	n := 0
	for _, c := range r.list() {
		if c.Path == path {
			n++
		}
	}
	return n
}

// serve starts a server whose handler gets each recorded call.
func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request, c call)) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, r, rec.add(r))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeRaw answers body with status and content type.
func writeRaw(w http.ResponseWriter, status int, ctype, body string) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// strictDecode decodes a request body, failing on unknown fields.
func strictDecode(t *testing.T, body []byte, v any) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Errorf("request body %s: %v", body, err)
	}
}

// hang blocks until the client gives up (or the test server closes).
func hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// deadURL returns the URL of a listener that has been closed.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func testConfig(provider, base string) config.EmbeddingConfig {
	return config.EmbeddingConfig{
		Provider:  provider,
		BaseURL:   base,
		Timeout:   config.Duration(5 * time.Second),
		BatchSize: 16,
	}
}

// wantErr fails unless err is non-nil and its message has every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
}

// asError returns err as *Error, failing the test if it is not one.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *embedding.Error", err, err)
	}
	return e
}
