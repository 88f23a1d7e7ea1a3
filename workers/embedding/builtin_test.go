package embedding

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

// The real model: two sentences, lazily loaded exactly once even when many
// goroutines make the first call together.
func TestBuiltinEmbedLoadsOnce(t *testing.T) {
	var loads atomic.Int32
	b := newBuiltin(16, func() (textEmbedder, error) {
		loads.Add(1)
		return loadUselite()
	})
	if b.Dimensions() != uselite.Dimensions || b.Model() != uselite.ModelName {
		t.Fatalf("Dimensions %d, Model %q", b.Dimensions(), b.Model())
	}
	if loads.Load() != 0 {
		t.Fatal("loaded before the first call")
	}
	texts := []string{"we deploy on Fridays", "the database is PostgreSQL 16"}
	const callers = 6
	results := make([][][]float32, callers)
	errs := make([]error, callers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			<-start
			results[i], errs[i] = b.Embed(context.Background(), texts)
		})
	}
	close(start)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("model loaded %d times, want 1", n)
	}
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if len(results[i]) != 2 || len(results[i][0]) != 512 || len(results[i][1]) != 512 {
			t.Fatalf("caller %d: shape %d×%d", i, len(results[i]), len(results[i][0]))
		}
	}
	a, c := results[0][0], results[0][1]
	same := true
	for j := range a {
		if a[j] != c[j] {
			same = false
		}
		if a[j] != results[callers-1][0][j] {
			t.Fatalf("two callers got different vectors for the same text")
		}
	}
	if same {
		t.Error("two different sentences got the same vector")
	}
	if err := b.Check(context.Background()); err != nil {
		t.Errorf("Check: %v", err)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("Check loaded again (%d loads)", n)
	}
}

// fakeModel stands in for uselite: it records the batch sizes it gets.
type fakeModel struct {
	mu      sync.Mutex
	batches []int
	busy    []string // per call: "none" (foreground), "busy" or "free"
	onEmbed func(n int)
}

func (f *fakeModel) Embed(texts []string) ([][]float32, error) {
	return f.EmbedBackground(texts, nil)
}

func (f *fakeModel) EmbedBackground(texts []string, busy func() bool) ([][]float32, error) {
	state := "none"
	if busy != nil {
		state = map[bool]string{true: "busy", false: "free"}[busy()]
	}
	f.mu.Lock()
	f.batches = append(f.batches, len(texts))
	f.busy = append(f.busy, state)
	f.mu.Unlock()
	if f.onEmbed != nil {
		f.onEmbed(len(texts))
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, uselite.Dimensions)
		fmt.Sscanf(s, "memory %g", &v[0])
		out[i] = v
	}
	return out, nil
}

func TestBuiltinBatches(t *testing.T) {
	f := &fakeModel{}
	b := newBuiltin(16, func() (textEmbedder, error) { return f, nil })
	texts := numberedTexts(40)
	got, err := b.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.batches) != "[16 16 8]" {
		t.Errorf("batches %v, want [16 16 8]", f.batches)
	}
	for i, v := range got {
		if v[0] != float32(i) {
			t.Fatalf("vector %d is for text %v: order lost", i, v[0])
		}
	}
}

func TestBuiltinCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeModel{onEmbed: func(int) { cancel() }}
	b := newBuiltin(2, func() (textEmbedder, error) { return f, nil })
	_, err := b.Embed(ctx, numberedTexts(5))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	wantErr(t, err, "stopped after 2 of 5 texts")
	if len(f.batches) != 1 {
		t.Errorf("%d batches ran after cancel", len(f.batches))
	}
	if _, err := b.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("already-canceled ctx: %v", err)
	}
}

// Warm in the background: a caller that stops waiting does not stop or
// repeat the load.
func TestBuiltinWarm(t *testing.T) {
	release := make(chan struct{})
	var loads atomic.Int32
	b := newBuiltin(16, func() (textEmbedder, error) {
		loads.Add(1)
		<-release
		return &fakeModel{}, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.Warm(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Warm with a short ctx: %v", err)
	}
	close(release)
	if err := b.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads", n)
	}
}

func TestBuiltinLoadError(t *testing.T) {
	var loads atomic.Int32
	b := newBuiltin(16, func() (textEmbedder, error) {
		loads.Add(1)
		return nil, errors.New("corrupt weights")
	})
	for range 2 {
		_, err := b.Embed(context.Background(), []string{"x"})
		wantErr(t, err, "builtin embedding model use-lite-512: loading failed: corrupt weights")
	}
	wantErr(t, b.Check(context.Background()), "corrupt weights")
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads; a failed load is not retried", n)
	}
}

func TestNewBuiltinIsLazy(t *testing.T) {
	e, err := New(config.EmbeddingConfig{Provider: "builtin", BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	b := e.(*Builtin)
	select {
	case <-b.done:
		t.Fatal("New started loading the model")
	default:
	}
	if b.batchSize != 4 {
		t.Errorf("batch %d", b.batchSize)
	}
}
