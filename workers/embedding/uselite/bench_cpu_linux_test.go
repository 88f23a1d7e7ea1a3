package uselite

import (
	"bufio"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEmbedCPU reports the process CPU time (user+sys, which the
// machine's load does not inflate as it does wall time) per text of Embed
// for calls of 1, 2 and 16 texts in turn: one memory at a time, the
// embedding tracker's batch while requests come, and its default batch.
// CAIRN_BENCH_TEXTS names a file of one memory per line (real text);
// without it the synthetic sentences of benchBatch are used. To compare
// two builds, build the test binary of each (go test -c) and run them in
// turn.
func BenchmarkEmbedCPU(b *testing.B) {
	m := loadTestModel(b)
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
	sizes := []int{1, 2, 16}
	if len(texts) <= sizes[len(sizes)-1] {
		b.Fatalf("%d texts: want more than %d", len(texts), sizes[len(sizes)-1])
	}
	cpu := make([]time.Duration, len(sizes))
	count := make([]int, len(sizes))
	tokens, next := 0, 0
	for b.Loop() {
		for k, n := range sizes {
			lo := next % (len(texts) - n)
			t0 := processCPU(b)
			if _, err := m.Embed(texts[lo : lo+n]); err != nil {
				b.Fatal(err)
			}
			cpu[k] += processCPU(b) - t0
			count[k] += n
			for _, t := range texts[lo : lo+n] {
				tokens += len(m.Tokenize(t))
			}
			next = lo + n
		}
	}
	for k, n := range sizes {
		b.ReportMetric(float64(cpu[k].Microseconds())/1000/float64(count[k]), fmt.Sprintf("cpu-ms/text-by-%d", n))
	}
	b.ReportMetric(float64(tokens)/float64(count[0]+count[1]+count[2]), "tokens/text")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
