package embedding

import (
	"bufio"
	"context"
	"os"
	"testing"

	"github.com/cairnmem/cairn/core/config"
)

// benchTexts reads up to n lines of CAIRN_BENCH_TEXTS (one memory per
// line), or skips the benchmark when it is not set.
func benchTexts(b *testing.B, n int) []string {
	b.Helper()
	path := os.Getenv("CAIRN_BENCH_TEXTS")
	if path == "" {
		b.Skip("set CAIRN_BENCH_TEXTS to a file of one memory per line")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []string
	for sc.Scan() && len(out) < n {
		out = append(out, sc.Text())
	}
	if len(out) == 0 {
		b.Fatalf("%s: no lines", path)
	}
	return out
}

// BenchmarkBuiltinEmbed embeds real memories through the built-in provider
// as the embedding tracker does (batches of the default batch size) and
// reports embeddings per second.
func BenchmarkBuiltinEmbed(b *testing.B) {
	texts := benchTexts(b, 1024)
	e, err := NewBuiltin(config.EmbeddingConfig{Provider: "builtin"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := e.Warm(ctx); err != nil {
		b.Fatal(err)
	}
	bs := config.DefaultEmbeddingBatchSize
	n, next := 0, 0
	for b.Loop() {
		lo := next % len(texts)
		hi := min(lo+bs, len(texts))
		if _, err := e.Embed(ctx, texts[lo:hi]); err != nil {
			b.Fatal(err)
		}
		n += hi - lo
		next = hi
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "embeddings/s")
}
