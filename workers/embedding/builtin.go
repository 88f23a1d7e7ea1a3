package embedding

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/vectors"

	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

// Builtin embeds with the offline uselite model compiled into cairn. The
// model (about 28 MB) is loaded once, on the first Embed, Warm or Check;
// construction is free. Builtin is safe for concurrent use.
type Builtin struct {
	batchSize int
	loadModel func() (textEmbedder, error)

	start sync.Once
	done  chan struct{} // closed when model/err are set
	model textEmbedder
	err   error
}

// textEmbedder is what Builtin needs of *uselite.Model.
type textEmbedder interface {
	Embed(texts []string) ([][]float32, error)
	// EmbedBackground is Embed on fewer cores while busy reports true.
	EmbedBackground(texts []string, busy func() bool) ([][]float32, error)
}

// The built-in model, loaded once per process: its weights are read-only
// once loaded and its scratch space is per call (a sync.Pool), so every
// provider of the process shares it (a test binary opens hundreds of
// stores; a process that serves one loads it once either way).
var uselitePerProcess = sync.OnceValues(uselite.Load)

func loadUselite() (textEmbedder, error) {
	m, err := uselitePerProcess()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// NewBuiltin returns the built-in provider. cfg.Model must be empty or
// uselite.ModelName; cfg.Dimensions must be 0 or uselite.Dimensions.
func NewBuiltin(cfg config.EmbeddingConfig) (*Builtin, error) {
	c, err := commonSettings(cfg, builtinModelName)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(c.model, builtinModelName) {
		return nil, &config.ConfigError{Key: "embedding.model", Value: fmt.Sprintf("%q", cfg.Model),
			Reason: fmt.Sprintf("the builtin provider has one model, %s; leave it empty or pick provider ollama or openai", builtinModelName)}
	}
	if c.dimensions != 0 && c.dimensions != uselite.Dimensions {
		return nil, &config.ConfigError{Key: "embedding.dimensions", Value: fmt.Sprint(c.dimensions),
			Reason: fmt.Sprintf("the builtin model answers %d dimensions; leave it 0 or set %d", uselite.Dimensions, uselite.Dimensions)}
	}
	return newBuiltin(c.batchSize, loadUselite), nil
}

func newBuiltin(batchSize int, load func() (textEmbedder, error)) *Builtin {
	return &Builtin{batchSize: batchSize, loadModel: load, done: make(chan struct{})}
}

// Model returns uselite.ModelName.
func (b *Builtin) Model() string { return builtinModelName }

// Dimensions returns uselite.Dimensions (512); it is known without loading.
func (b *Builtin) Dimensions() int { return uselite.Dimensions }

// Warm starts loading the model if no one has, and waits until it is loaded
// or ctx is done. Loading continues in the background if ctx ends first, so
// `go b.Warm(ctx)` at startup never blocks and never loads twice.
func (b *Builtin) Warm(ctx context.Context) error {
	_, err := b.get(ctx)
	return err
}

// Check loads the model (once) and reports whether that worked.
func (b *Builtin) Check(ctx context.Context) error { return b.Warm(ctx) }

func (b *Builtin) get(ctx context.Context) (textEmbedder, error) {
	b.start.Do(func() {
		go func() {
			defer close(b.done)
			defer func() {
				if p := recover(); p != nil {
					b.model, b.err = nil, fmt.Errorf("builtin embedding model %s: loading failed: panic: %v", builtinModelName, p)
				}
			}()
			m, err := b.loadModel()
			if err == nil && m == nil {
				err = errors.New("no model")
			}
			if err != nil {
				m, err = nil, fmt.Errorf("builtin embedding model %s: loading failed: %w", builtinModelName, err)
			}
			b.model, b.err = m, err
		}()
	})
	select {
	case <-b.done:
		return b.model, b.err
	default:
	}
	select {
	case <-b.done:
		return b.model, b.err
	case <-ctx.Done():
		return nil, fmt.Errorf("builtin embedding model %s: waiting for the model to load: %w", builtinModelName, ctx.Err())
	}
}

// Embed returns one 512-dimension vector per text, in order. It sends at
// most batch_size texts to the model at a time and stops between batches
// when ctx is done. Background work (vectors.ForegroundProbe) runs on one core
// while a foreground request is in flight, on all of them otherwise; a
// foreground call never waits for a background one (the model has no lock).
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("builtin embedding: %w", ctx.Err())
	}
	m, err := b.get(ctx)
	if err != nil {
		return nil, err
	}
	busy := vectors.ForegroundProbe(ctx)
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += b.batchSize {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("builtin embedding: stopped after %d of %d texts: %w", lo, len(texts), ctx.Err())
		}
		hi := min(lo+b.batchSize, len(texts))
		vecs, err := m.EmbedBackground(texts[lo:hi], busy)
		if err != nil {
			return nil, fmt.Errorf("builtin embedding model %s: %w", builtinModelName, err)
		}
		if len(vecs) != hi-lo {
			return nil, fmt.Errorf("builtin embedding model %s: %d vectors for %d texts", builtinModelName, len(vecs), hi-lo)
		}
		out = append(out, vecs...)
	}
	return out, nil
}
