package vector

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/workers/embedding/uselite"
)

// Real data for the vector leg's figures, given as paths (never in git):
//
//	CAIRN_BENCH_STORE    a memories.db with use-lite-512 vectors; for the
//	                     recall figure its vectors must still be float32
//	                     (a copy taken before the store was converted)
//	CAIRN_BENCH_QUERIES  LoCoMo JSON: its questions, embedded with the
//	                     built-in model, are the queries
//	CAIRN_BENCH_N        comma-separated index sizes (default 10000)
//
// go test -run TestVectorRecallOnRealEmbeddings -bench VectorSearch ./core/vector/

type realData struct {
	vecs    [][]float32 // as stored (float32 when the store is unconverted)
	queries [][]float32
}

var (
	realOnce sync.Once
	real     *realData
	realErr  error
)

func loadReal(tb testing.TB) *realData {
	tb.Helper()
	store, qpath := os.Getenv("CAIRN_BENCH_STORE"), os.Getenv("CAIRN_BENCH_QUERIES")
	if store == "" || qpath == "" {
		tb.Skip("set CAIRN_BENCH_STORE and CAIRN_BENCH_QUERIES")
	}
	realOnce.Do(func() { real, realErr = readReal(store, qpath) })
	if realErr != nil {
		tb.Fatal(realErr)
	}
	return real
}

func readReal(store, qpath string) (*realData, error) {
	ctx := context.Background()
	db, err := storage.Open(ctx, storage.Options{Path: store, NoBackup: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d := &realData{}
	legacy := 0
	err = storage.EachVectorRow(ctx, db.Reader(), uselite.ModelName, func(r *storage.VectorRow) error {
		if IsLegacy(r.Vector, uselite.Dimensions) {
			legacy++
		}
		v, err := Decode(r.Vector, uselite.Dimensions)
		if err != nil {
			return err
		}
		d.vecs = append(d.vecs, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if legacy != len(d.vecs) {
		fmt.Fprintf(os.Stderr, "warning: %d of %d vectors are already quantized: the 'exact' reference is not float32\n",
			len(d.vecs)-legacy, len(d.vecs))
	}
	raw, err := os.ReadFile(qpath)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		QA []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
	}
	var texts []string
	for _, s := range samples {
		for _, qa := range s.QA {
			texts = append(texts, qa.Question)
		}
	}
	m, err := uselite.Load()
	if err != nil {
		return nil, err
	}
	if d.queries, err = m.Embed(texts); err != nil {
		return nil, err
	}
	return d, nil
}

func benchSizes(tb testing.TB, max int) []int {
	s := os.Getenv("CAIRN_BENCH_N")
	if s == "" {
		s = "10000"
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			tb.Fatalf("CAIRN_BENCH_N: %q", f)
		}
		out = append(out, min(n, max))
	}
	return out
}

// floatIndex is the float32 index as it was before quantization (exact
// cosine over every vector, split across the CPUs): the reference.
type floatIndex struct {
	dim  int
	vecs []float32
}

func newFloatIndex(vecs [][]float32) *floatIndex {
	f := &floatIndex{dim: len(vecs[0]), vecs: make([]float32, 0, len(vecs)*len(vecs[0]))}
	for _, v := range vecs {
		f.vecs = append(f.vecs, v...)
	}
	return f
}

func (f *floatIndex) search(q []float32, k int) []int {
	n := len(f.vecs) / f.dim
	workers := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	parts := make([]minHeap, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() {
			h := make(minHeap, 0, k+1)
			for i := lo; i < hi; i++ {
				s := Dot(q, f.vecs[i*f.dim:(i+1)*f.dim])
				h.offer(k, scored{i, s})
			}
			parts[w] = h
		})
	}
	wg.Wait()
	var all []scored
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	out := make([]int, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.slot)
	}
	return out
}

// quantIndex is the int8 index with the prefilter allowed (Search uses
// it once calibrated, as on CPUs without the AVX2 kernel).
func quantIndex(vecs [][]float32) *Index {
	ix := newIndex(uselite.ModelName, len(vecs[0]))
	ix.fullScan = false
	for i, v := range vecs {
		ix.Put(Meta{id: strconv.Itoa(i), live: true}, v)
	}
	return ix
}

// The vector leg on real embeddings (memories of the benchmark mix, LoCoMo
// questions as queries): recall@10 of the int8 index, scanning all codes
// and through the calibrated sign-bit prefilter, against exact float32
// search, and the memory each takes.
func TestVectorRecallOnRealEmbeddings(t *testing.T) {
	d := loadReal(t)
	const k, calib = 10, 40
	for _, n := range benchSizes(t, len(d.vecs)) {
		vecs := d.vecs[:n]
		fx, ix := newFloatIndex(vecs), quantIndex(vecs)
		cands, calRecall := ix.Calibrate(d.queries[:calib])
		all := func(int) bool { return true }
		var scanHits, searchHits, want int
		queries := d.queries[calib:]
		for _, q := range queries {
			truth := map[int]bool{}
			for _, i := range fx.search(q, k) {
				truth[i] = true
			}
			want += len(truth)
			for _, s := range ix.exact(Quantize(q), k, nil, all) {
				if truth[s.slot] {
					scanHits++
				}
			}
			for _, h := range ix.Search(q, k, &storage.MemoryFilter{}) {
				i, _ := strconv.Atoi(h.ID)
				if truth[i] {
					searchHits++
				}
			}
		}
		scan, search := float64(scanHits)/float64(want), float64(searchHits)/float64(want)
		t.Logf("n=%d queries=%d: recall@10 vs float32 exact: int8 scan %.4f, int8 with the prefilter %.4f (candidates %d, calibrated recall %.3f); memory: float32 %.1f MB, int8 index %.1f MB",
			n, len(queries), scan, search, cands, calRecall, float64(4*len(fx.vecs))/1e6, float64(ix.Bytes())/1e6)
		if scan < 0.99 || search < 0.99 {
			t.Errorf("n=%d: recall@10 below 0.99 (scan %.4f, search %.4f)", n, scan, search)
		}
	}
}

// BenchmarkVectorSearch times one top-10 query on real embeddings: the
// float32 exact scan of before, the int8 scan (what Search does with the
// AVX2 kernel), and the int8 search through the calibrated prefilter
// (without it), interleaved.
func BenchmarkVectorSearch(b *testing.B) {
	d := loadReal(b)
	for _, n := range benchSizes(b, len(d.vecs)) {
		vecs := d.vecs[:n]
		fx, ix := newFloatIndex(vecs), quantIndex(vecs)
		cands, _ := ix.Calibrate(d.queries[:40])
		queries := d.queries[40:]
		all := func(int) bool { return true }
		f := &storage.MemoryFilter{}
		for round := range 2 {
			b.Run(fmt.Sprintf("n=%d/float32-exact/%d", n, round), func(b *testing.B) {
				i := 0
				for b.Loop() {
					fx.search(queries[i%len(queries)], 10)
					i++
				}
			})
			b.Run(fmt.Sprintf("n=%d/int8-scan/%d", n, round), func(b *testing.B) {
				i := 0
				for b.Loop() {
					ix.exact(Quantize(queries[i%len(queries)]), 10, nil, all)
					i++
				}
			})
			b.Run(fmt.Sprintf("n=%d/int8-prefilter/%d", n, round), func(b *testing.B) {
				i := 0
				for b.Loop() {
					ix.Search(queries[i%len(queries)], 10, f)
					i++
				}
				b.ReportMetric(float64(cands), "prefilter-cands")
			})
		}
	}
}
