package transfer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// BenchmarkImportFile imports the JSONL export named by
// CAIRN_BENCH_IMPORT (e.g. 10k real memories) into a fresh store per
// operation, with the default configuration and no embedder: what `cairn
// import` does.
func BenchmarkImportFile(b *testing.B) {
	path := os.Getenv("CAIRN_BENCH_IMPORT")
	if path == "" {
		b.Skip("CAIRN_BENCH_IMPORT names no JSONL file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	lines, e := httpapi.ReadImportLines(f)
	f.Close()
	if e != nil {
		b.Fatal(e)
	}
	total := 0
	for b.Loop() {
		b.StopTimer()
		db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(b.TempDir(), "i.db"), NoBackup: true})
		if err != nil {
			b.Fatal(err)
		}
		ap := app.New(db, config.DefaultConfig(), app.Options{})
		cp := append([]transfer.ImportLine(nil), lines...)
		b.StartTimer()
		res, err := ap.Transfer.Import(context.Background(), cp, core.Actor{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		total += res.Imported
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "memories/s")
}
