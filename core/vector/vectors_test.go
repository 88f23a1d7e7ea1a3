package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairnmem/cairn/storage"
)

// clustered returns n unit vectors around 100 random centres, like
// embeddings of a corpus with topics.
func clustered(r *rand.Rand, n, dim int, noise float64) [][]float32 {
	centres := make([][]float32, 100)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(r.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(noise*r.NormFloat64())
		}
		Normalize(v)
		out[i] = v
	}
	return out
}

// Whatever calibration decides from past queries, search on new queries of
// the same kind must keep recall@10 at or above 0.99 against the exact
// scan: where sign bits separate neighbours poorly, the prefilter stays off.
func TestVectorPrefilterKeepsRecall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noise float64
	}{{"tight clusters", 0.5}, {"loose clusters", 3}, {"queries from the data's topics", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			const dim, n, queries, k = 128, prefilterMin + 2000, 30, 10
			noise := max(tc.noise, 0.5)
			data := clustered(r, n+40+queries, dim, noise)
			ix := newIndex("test", dim)
			ix.fullScan = false // the prefilter path, as on CPUs without the kernel
			for i, v := range data[:n] {
				ix.Put(Meta{id: itoa(i), live: true}, v)
			}
			// Queries either come from other topics than the data (fresh
			// centres) or from the data's own topics (held-out points).
			queryKind := func(m int) [][]float32 {
				if tc.noise < 0 {
					return data[n : n+m]
				}
				return clustered(rand.New(rand.NewPCG(9, uint64(m))), m, dim, noise)
			}
			cands, measured := ix.Calibrate(queryKind(40))
			t.Logf("calibration: candidates %d (0 = exact), measured recall@10 %.3f", cands, measured)
			all := func(int) bool { return true }
			hits := 0
			for _, q := range queryKind(queries + 40)[40:] { // not used by calibration
				want := map[int]bool{}
				for _, s := range ix.exact(Quantize(q), k, nil, all) {
					want[s.slot] = true
				}
				for _, h := range ix.Search(q, k, &storage.MemoryFilter{}) {
					if want[ix.slot[h.ID]] {
						hits++
					}
				}
			}
			if recall := float64(hits) / float64(queries*k); recall < 0.99 {
				t.Fatalf("search recall@10 = %.3f with %d prefilter candidates", recall, cands)
			}
		})
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

func TestVectorIndexPutRemoveFilter(t *testing.T) {
	ix := newIndex("m", 4)
	pinned := true
	ix.Put(Meta{id: "a", typ: "fact", project: "p", tags: []string{"X"}}, []float32{1, 0, 0, 0})
	ix.Put(Meta{id: "b", typ: "rule", pinned: true, scope: "user"}, []float32{0, 1, 0, 0})
	ix.Put(Meta{id: "c", typ: "fact"}, []float32{0.9, 0.1, 0, 0})
	q := []float32{1, 0, 0, 0}
	for scope, want := range map[string][]string{"user": {"b"}, "agent": nil, "project": {"a", "c"}} {
		var got []string
		for _, h := range ix.Search(q, 3, &storage.MemoryFilter{Scope: scope}) {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scope %s: %v, want %v", scope, got, want)
		}
	}
	if got := ix.Search(q, 1, &storage.MemoryFilter{}); got[0].ID != "a" {
		t.Fatalf("top = %v", got)
	}
	if got := ix.Search(q, 3, &storage.MemoryFilter{Tags: []string{"x"}}); len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("tag filter (case-insensitive) = %v", got)
	}
	if got := ix.Search(q, 3, &storage.MemoryFilter{Pinned: &pinned}); len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("pinned filter = %v", got)
	}
	ix.Remove("a")
	if got := ix.Search(q, 3, &storage.MemoryFilter{}); len(got) != 2 || got[0].ID != "c" {
		t.Fatalf("after remove = %v", got)
	}
	if v, ok := ix.Vector("b"); !ok || v[1] != 1 {
		t.Fatal("slot moved by remove lost its vector")
	}
	ix.Put(Meta{id: "c", typ: "fact"}, []float32{0, 0, 1, 0})
	if ix.Len() != 2 {
		t.Fatalf("re-put grew the index: %d", ix.Len())
	}
	if Normalize([]float32{0, 0}) {
		t.Fatal("zero vector normalized")
	}
	v, err := Decode(Encode([]float32{1.5, -2}), 2)
	if err != nil || math.Abs(float64(v[0]-1.5)) > 0.01 || v[1] != -2 {
		t.Fatalf("blob round trip: %v %v", v, err)
	}
	if _, err := Decode([]byte{1, 2, 3}, 2); err == nil {
		t.Fatal("odd blob accepted")
	}
}
