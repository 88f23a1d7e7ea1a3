package transfer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

func benchApp(b *testing.B) *app.App {
	b.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(b.TempDir(), "bench.db"), NoBackup: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return app.New(db, config.DefaultConfig(), app.Options{})
}

// BenchmarkImport measures bulk import through the write path, 10,000
// memories per operation into a fresh store.
func BenchmarkImport(b *testing.B) {
	const n = 10000
	lines := make([]transfer.ImportLine, n)
	for i := range lines {
		lines[i] = transfer.ImportLine{Line: i + 1, Memory: core.Memory{
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
		ap := benchApp(b)
		b.StartTimer()
		res, err := ap.Transfer.Import(context.Background(), lines, core.Actor{Name: "bench"})
		if err != nil || res.Imported != n {
			b.Fatalf("import: %v %+v", err, res)
		}
		total += n
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "memories/s")
}
