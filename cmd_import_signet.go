package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/signet"
)

// importSignet is `cairn import --from signet PATH`: it reads a Signet
// memories.db (read-only) and writes it through this cairn's write path.
// It needs the database to itself: history and vectors are written beside
// the memories, which the API's import does not carry.
func importSignet(ctx context.Context, common *commonFlags, path, model string, dryRun, asJSON bool, out io.Writer) error {
	src, err := signet.Open(ctx, path)
	if err != nil {
		return err
	}
	defer src.Close()
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	st, err := a.openStore(ctx)
	if err != nil {
		var le *storage.LockedError
		if errors.As(err, &le) {
			return fmt.Errorf("importing a Signet store needs the database to itself, and cairn pid %d holds %s: quit it (q in its terminal, or kill %d), run the import, then start cairn again", le.Holder.PID, a.paths.Database, le.Holder.PID)
		}
		return err
	}
	defer st.Close()
	rep, err := st.app.Transfer.ImportSignet(ctx, src, transfer.SignetOptions{EmbeddingModel: model, DryRun: dryRun},
		core.Actor{Name: "signet-import", Type: core.ActorOperator})
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, rep)
	}
	printSignetReport(out, rep, "database "+a.paths.Database)
	return nil
}

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
