package vector

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cairnmem/cairn/storage"
)

// The batched kernel gives each code the dot product the portable loop
// gives it, for block sizes the scan uses and a ragged last block.
func TestDotsMatchesDot(t *testing.T) {
	if !dotKernel {
		t.Skip("no AVX2 kernel on this CPU")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{32, 64, 384, 512, 768} {
		for _, count := range []int{1, 2, 7, scanBlock - 1, scanBlock} {
			a := make([]int8, n)
			b := make([]int8, n*count)
			for j := range a {
				a[j] = int8(r.IntN(256) - 128)
			}
			for j := range b {
				b[j] = int8(r.IntN(256) - 128)
			}
			b[0], a[0] = -128, -128
			q := newQueryCode(Code{Codes: a})
			out := make([]int32, count)
			dotsI16I8AVX2(&q.wide[0], &b[0], n, count, &out[0])
			for v := range count {
				if want := dotI8(a, b[v*n:(v+1)*n]); out[v] != want {
					t.Fatalf("n=%d count=%d: code %d dot = %d, want %d", n, count, v, out[v], want)
				}
			}
		}
	}
}

// A search with no filter scans in blocks; it finds the same memories in
// the same order with the same scores as the scan that checks a filter
// letting everything through, at sizes that leave a ragged block per
// worker.
func TestUnfilteredScanMatchesFiltered(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const dim = 64
	for _, n := range []int{1, 300, 9000} {
		ix := newIndex("test", dim)
		for i, v := range clustered(r, n, dim, 0.3) {
			ix.Put(Meta{id: itoa(i), live: true}, v)
		}
		all := func(int) bool { return true }
		for trial := range 20 {
			q := Quantize(clustered(r, 1, dim, 0.3)[0])
			for _, k := range []int{1, 10, 50} {
				got, want := ix.exact(q, k, nil, nil), ix.exact(q, k, nil, all)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("n=%d trial %d k=%d: unfiltered scan %v, filtered %v", n, trial, k, got, want)
				}
			}
		}
		if hits := ix.Search(clustered(r, 1, dim, 0.3)[0], 10, &storage.MemoryFilter{}); len(hits) != min(10, n) {
			t.Fatalf("n=%d: %d hits", n, len(hits))
		}
	}
}

// selectsAll must not skip a filter matches applies: every field of
// MemoryFilter, set alone, either makes selectsAll false or is one that
// matches ignores (it lets every memory through).
func TestSelectsAllKeepsInStepWithMatches(t *testing.T) {
	metas := []Meta{
		{id: "a"},
		{id: "b", typ: "fact", who: "w", project: "p", sourceType: "manual", tags: []string{"t"}, pinned: true,
			importance: 0.5, createdAt: "2024-01-01T00:00:00Z", scope: "user"},
	}
	if !selectsAll(nil) || !selectsAll(&storage.MemoryFilter{}) {
		t.Fatal("an empty filter must select all")
	}
	ft := reflect.TypeOf(storage.MemoryFilter{})
	for i := range ft.NumField() {
		var f storage.MemoryFilter
		fv := reflect.ValueOf(&f).Elem().Field(i)
		if !fv.CanSet() {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			fv.SetString("zz")
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Int, reflect.Int64:
			fv.SetInt(1)
		case reflect.Float64:
			fv.SetFloat(2)
		case reflect.Slice:
			fv.Set(reflect.Append(fv, reflect.ValueOf("zz").Convert(fv.Type().Elem())))
		case reflect.Pointer:
			p := reflect.New(fv.Type().Elem())
			switch p.Elem().Kind() {
			case reflect.Float64:
				p.Elem().SetFloat(2)
			case reflect.Bool:
				p.Elem().SetBool(true)
			}
			fv.Set(p)
		default:
			t.Fatalf("field %s: kind %s not covered by this test", ft.Field(i).Name, fv.Kind())
		}
		if selectsAll(&f) {
			for _, m := range metas {
				if !m.matches(&f) {
					t.Errorf("field %s: selectsAll lets every memory through, matches rejects %s", ft.Field(i).Name, m.id)
				}
			}
		}
	}
}

// BenchmarkUnfilteredScan is the exact scan of N (CAIRN_BENCH_N, default
// 100k) random 512-dimension codes, one code per kernel call behind a
// filter letting everything through, and batched with no filter,
// alternated.
func BenchmarkUnfilteredScan(b *testing.B) {
	r := rand.New(rand.NewPCG(41, 42))
	const dim = 512
	n := benchSizes(b, 100_000)[0]
	ix := newIndex("bench", dim)
	v := make([]float32, dim)
	for i := range n {
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		ix.Put(Meta{id: itoa(i), live: true}, v)
	}
	q := Quantize(v)
	all := func(int) bool { return true }
	for round := range 3 {
		b.Run(fmt.Sprintf("n=%d/per-code/%d", n, round), func(b *testing.B) {
			for b.Loop() {
				ix.exact(q, 10, nil, all)
			}
		})
		b.Run(fmt.Sprintf("n=%d/batched/%d", n, round), func(b *testing.B) {
			for b.Loop() {
				ix.exact(q, 10, nil, nil)
			}
		})
	}
}
