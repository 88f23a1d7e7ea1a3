package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage/signet"
)

// importSignet is `cairn import --from signet PATH`: it reads a Signet
// memories.db (read-only) into this cairn's write path, through the
// running cairn when one holds the store (it opens the file itself), else
// in this process.
func importSignet(ctx context.Context, common *commonFlags, path, model string, dryRun, asJSON bool, out io.Writer) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	src, err := signet.Open(ctx, abs) // a bad file fails here, the same either way
	if err != nil {
		return err
	}
	src.Close()
	be, err := connectAs(ctx, common, signetActor, signetActor)
	if err != nil {
		return err
	}
	defer be.Close()
	rep, err := be.(client.SignetImporter).ImportSignet(ctx, abs, transfer.SignetOptions{EmbeddingModel: model, DryRun: dryRun})
	if client.StatusOf(err) == 404 {
		return fmt.Errorf("%s is older than this cairn and cannot import from Signet: stop it, then run the import again", be.Describe())
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, rep)
	}
	printSignetReport(out, rep, be.Describe())
	return nil
}

// signetActor is who a Signet import records its memories as.
var signetActor = core.Actor{Name: "signet-import", Type: core.ActorOperator}

func printSignetReport(w io.Writer, r *transfer.SignetReport, dest string) {
	if r.DryRun {
		fmt.Fprintf(w, "dry run: %d Signet memories (schema version %d) would be imported into %s; nothing was written\n", r.Memories.Total, r.SchemaVersion, dest)
	} else {
		fmt.Fprintf(w, "imported %d Signet memories (schema version %d) into %s\n", r.Memories.Imported, r.SchemaVersion, dest)
		fmt.Fprintf(w, "  %d already present, %d duplicates of live memories, %d imported as deleted (recoverable)\n",
			r.Memories.Existing, r.Memories.Deduped, r.Tombstones)
		fmt.Fprintf(w, "  history: %d events imported, %d already present, %d of no imported memory\n",
			r.History.Imported, r.History.Existing, r.History.Orphans)
	}
	printReasons(w, "left out", r.Skipped)
	printReasons(w, "imported with a change", r.Adjusted)
	e := r.Embeddings
	if e.InSignet > 0 {
		fmt.Fprintf(w, "  vectors: %d of %d kept", e.Imported, e.InSignet)
		if e.Why != "" {
			fmt.Fprintf(w, " (%s)", e.Why)
		}
		fmt.Fprintln(w)
	}
}

func printReasons(w io.Writer, what string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	fmt.Fprintf(w, "  %s: %s\n", what, strings.Join(parts, ", "))
}
