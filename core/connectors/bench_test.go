package connectors_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/internal/apitest"
)

// noteText is a note of a few hundred bytes, different for each i.
func noteText(i int) string {
	topics := []string{"deploy", "postgres", "on-call", "billing", "search", "kafka", "terraform", "release"}
	t := topics[i%len(topics)]
	return fmt.Sprintf("# Note %d about %s\n\nThe %s runbook step %d: check the dashboard, page the owner of service-%d, "+
		"and write down what changed in ticket OPS-%d. Staging uses port %d; production keeps %d replicas.\n",
		i, t, t, i, i%37, 1000+i, 5000+i%100, 2+i%5)
}

// BenchmarkFilesystemSync: a connector's first sync of 1,000 files (the
// documents queued, then ingested by the document worker), and an
// incremental sync after 10 of them changed.
//
//	go test -run XXX -bench FilesystemSync ./core/connectors/
func BenchmarkFilesystemSync(b *testing.B) {
	ctx := context.Background()
	const files = 1000
	setup := func(b *testing.B) (*app.App, *connectors.Connectors, string, string) {
		root := b.TempDir()
		for i := range files {
			write(b, root, fmt.Sprintf("team%d/note-%04d.md", i%10, i), noteText(i))
		}
		ap := apitest.NewApp(b, nil, func(c *config.Config) { c.Connectors.Roots = []string{root} })
		reg := ap.Connectors
		c, err := reg.Create(ctx, connectors.CreateInput{Provider: "filesystem", Root: root})
		if err != nil {
			b.Fatal(err)
		}
		return ap, reg, c.ID, root
	}
	b.Run("first-1000", func(b *testing.B) {
		var syncMS, ingestMS float64
		for b.Loop() {
			b.StopTimer()
			ap, reg, id, _ := setup(b)
			b.StartTimer()
			t0 := time.Now()
			res, err := reg.Sync(ctx, id)
			if err != nil || res.Added != files {
				b.Fatalf("%+v %v", res, err)
			}
			t1 := time.Now()
			ingest(b, ap)
			syncMS += float64(t1.Sub(t0).Milliseconds())
			ingestMS += float64(time.Since(t1).Milliseconds())
		}
		b.ReportMetric(syncMS/float64(b.N), "sync-ms")
		b.ReportMetric(ingestMS/float64(b.N), "ingest-ms")
	})
	b.Run("incremental-10-of-1000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			_, reg, id, root := setup(b)
			if _, err := reg.Sync(ctx, id); err != nil {
				b.Fatal(err)
			}
			later := time.Now().Add(time.Minute)
			for i := range 10 {
				p := filepath.Join(root, fmt.Sprintf("team%d/note-%04d.md", i%10, i))
				write(b, root, fmt.Sprintf("team%d/note-%04d.md", i%10, i), noteText(i)+"\nUpdated.\n")
				os.Chtimes(p, later, later)
			}
			b.StartTimer()
			res, err := reg.Sync(ctx, id)
			if err != nil || res.Changed != 10 || res.Unchanged != files-10 {
				b.Fatalf("%+v %v", res, err)
			}
		}
	})
}
