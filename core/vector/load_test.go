package vector

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cairnmem/cairn/storage"
)

const testModel = "m"

func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "v.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// addEmbedded writes n live memories, each with a vector (float32 BLOBs
// when legacy, else the quantized format), numbered from first.
func addEmbedded(t testing.TB, db *storage.DB, r *rand.Rand, first, n, dim int, legacy bool) [][]float32 {
	t.Helper()
	ctx := context.Background()
	vecs := clustered(r, n, dim, 1)
	err := db.WriteTx(ctx, func(tx storage.Tx) error {
		for i, v := range vecs {
			id := fmt.Sprintf("m%06d", first+i)
			m := &storage.Memory{ID: id, Type: "fact", Content: id, ContentHash: "h-" + id,
				Confidence: 1, Importance: 0.5, SourceType: "manual", CreatedAt: "2026-01-01T00:00:00.000Z",
				UpdatedAt: "2026-01-01T00:00:00.000Z", UpdatedBy: "test"}
			if err := storage.InsertMemory(ctx, tx, m); err != nil {
				return err
			}
			blob := Encode(v)
			if legacy {
				blob = blob[:0:0]
				for _, x := range v {
					blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(x))
				}
			}
			if err := storage.UpsertEmbedding(ctx, tx, m.ContentHash, testModel, dim, blob); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}

// growingQuerier is the real reader, but before the first multi-row
// query (Load's read, after its count) it commits more embedded memories,
// as a writer racing the load would.
type growingQuerier struct {
	storage.Querier
	once sync.Once
	grow func()
}

func (g *growingQuerier) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	g.once.Do(g.grow)
	return g.Querier.QueryContext(ctx, q, args...)
}

// Rows written between Load's count and its read used to overflow arrays
// sized by the count (a panic, or a mis-sized index); now every row read
// is indexed, old float32 BLOBs and quantized ones alike.
func TestLoadToleratesRowsWrittenWhileLoading(t *testing.T) {
	db := openStore(t)
	r := rand.New(rand.NewPCG(5, 6))
	const dim = 64
	addEmbedded(t, db, r, 0, 50, dim, true)
	addEmbedded(t, db, r, 50, 50, dim, false)
	q := &growingQuerier{Querier: db.Reader(), grow: func() { addEmbedded(t, db, r, 100, 30, dim, false) }}
	ix, err := Load(context.Background(), q, testModel, dim)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 130 {
		t.Fatalf("loaded %d vectors, want 130", ix.Len())
	}
	for _, id := range []string{"m000000", "m000077", "m000129"} {
		v, ok := ix.Vector(id)
		if !ok {
			t.Fatalf("%s not loaded", id)
		}
		if got := ix.Search(v, 1, &storage.MemoryFilter{}); len(got) != 1 || got[0].ID != id {
			t.Fatalf("search by %s's own vector = %v", id, got)
		}
	}
}

// Loading while writers commit and the index is searched and updated:
// under -race this checks the load shares nothing unguarded.
func TestLoadUnderConcurrentWrites(t *testing.T) {
	db := openStore(t)
	const dim = 32
	addEmbedded(t, db, rand.New(rand.NewPCG(7, 8)), 0, 200, dim, false)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		r := rand.New(rand.NewPCG(9, 10))
		for i := 0; !stop.Load(); i++ {
			addEmbedded(t, db, r, 1000+10*i, 10, dim, i%2 == 0)
		}
	})
	for range 10 {
		ix, err := Load(context.Background(), db.Reader(), testModel, dim)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Len() < 200 {
			t.Fatalf("loaded %d vectors, want at least 200", ix.Len())
		}
		wg.Go(func() {
			v, _ := ix.Vector("m000003")
			ix.Search(v, 5, &storage.MemoryFilter{})
		})
		ix.Put(Meta{id: "new", live: true}, clustered(rand.New(rand.NewPCG(1, 1)), 1, dim, 1)[0])
		ix.Remove("m000004")
	}
	stop.Store(true)
	wg.Wait()
}
