package uselite

import (
	"bufio"
	"os"
	"testing"
)

// BenchmarkEmbedKernels embeds the same batches with the weights packed
// for the fused multiply-add kernel and row-major for gonum, interleaved
// in one run. CAIRN_BENCH_TEXTS names a file of one memory per line (real
// text); without it the synthetic sentences of benchBatch are used.
func BenchmarkEmbedKernels(b *testing.B) {
	if !packedKernel {
		b.Skip("no AVX2/FMA")
	}
	texts := benchBatch(1024)
	if path := os.Getenv("CAIRN_BENCH_TEXTS"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		texts = texts[:0]
		for sc.Scan() && len(texts) < 1024 {
			texts = append(texts, sc.Text())
		}
		f.Close()
	}
	packed := loadTestModel(b)
	packedKernel = false
	plain, err := Load()
	packedKernel = true
	if err != nil {
		b.Fatal(err)
	}
	const batch = 16
	for _, v := range []struct {
		name string
		m    *Model
	}{{"gonum", plain}, {"packed", packed}, {"gonum", plain}, {"packed", packed}} {
		b.Run(v.name, func(b *testing.B) {
			n, next := 0, 0
			for b.Loop() {
				lo := next % len(texts)
				hi := min(lo+batch, len(texts))
				if _, err := v.m.Embed(texts[lo:hi]); err != nil {
					b.Fatal(err)
				}
				n += hi - lo
				next = hi
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "embeddings/s")
		})
	}
}

// The fallback for CPUs without AVX2/FMA (weights row-major, gonum) still
// produces the reference vectors.
func TestEmbedWithoutPackedKernel(t *testing.T) {
	if !packedKernel {
		t.Skip("this CPU already uses the fallback")
	}
	packedKernel = false
	plain, err := Load()
	packedKernel = true
	if err != nil {
		t.Fatal(err)
	}
	if plain.layers[1].ffn1W.packed != nil || plain.layers[1].ffn1W.raw == nil {
		t.Fatal("weights packed without the kernel")
	}
	texts := benchBatch(20)
	want, err := loadTestModel(t).Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := plain.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if c := cosine(got[i], want[i]); c < 0.99999 {
			t.Fatalf("text %d: cosine fallback vs kernel %.7f", i, c)
		}
	}
}
