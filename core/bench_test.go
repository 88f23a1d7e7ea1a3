package core

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core/config"

	"github.com/cairnmem/cairn/storage"
)

func benchService(b *testing.B) *Service {
	b.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(b.TempDir(), "bench.db"), NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return NewService(db, config.DefaultConfig(), ServiceOptions{})
}

// BenchmarkImport measures bulk import through the write path, 10,000
// memories per operation into a fresh store.
func BenchmarkImport(b *testing.B) {
	const n = 10000
	lines := make([]ImportLine, n)
	for i := range lines {
		lines[i] = ImportLine{Line: i + 1, Memory: Memory{
			Content:    fmt.Sprintf("imported memory %d: user prefers tabs over spaces in project %d", i, i%50),
			Type:       "preference",
			Importance: 0.7,
			Confidence: 1,
			Tags:       []string{"import"},
		}}
	}
	var total int
	for b.Loop() {
		b.StopTimer()
		svc := benchService(b)
		b.StartTimer()
		res, err := svc.Import(context.Background(), lines, Actor{Name: "bench"})
		if err != nil || res.Imported != n {
			b.Fatalf("import: %v %+v", err, res)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "memories/s")
}
