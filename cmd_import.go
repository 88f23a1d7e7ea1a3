package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/cairnmem/cairn/core/httpapi"

	"charm.land/bubbles/v2/progress"
)

// runImport is `cairn import`: it checks every line of an export first,
// then writes them in chunks through the API or the store.
func runImport(ctx context.Context, args []string) error {
	fs, common := newFlagSet("import", "import FILE (or - for standard input)\n       cairn import --from signet [--embedding-model M] [--dry-run] [--json] PATH/memories.db")
	from := fs.String("from", "", "read another tool's store instead of cairn's JSONL: signet (a Signet memories.db)")
	model := fs.String("embedding-model", "", "with --from signet: the model that made Signet's vectors; they are kept when cairn embeds with the same one")
	dryRun := fs.Bool("dry-run", false, "with --from signet: read and check everything, write nothing")
	asJSON := fs.Bool("json", false, "print the result (with --from signet: the report) as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the import to this file (for `go tool pprof`)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	switch *from {
	case "":
	case "signet":
		if len(pos) != 1 {
			return usageError{"cairn import --from signet takes the path of Signet's memories.db (usually ~/.agents/memory/memories.db)"}
		}
		return importSignet(ctx, common, pos[0], *model, *dryRun, *asJSON, os.Stdout)
	default:
		return usageError{fmt.Sprintf("--from %q: the one other store cairn reads is signet", *from)}
	}
	if len(pos) != 1 {
		return usageError{"cairn import takes one file (or - for standard input)"}
	}
	var in io.Reader = os.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	// Check every line before writing anything: a bad line N stops the
	// import with nothing written.
	lines, e := httpapi.ReadImportLines(bytes.NewReader(data))
	if e != nil {
		return e
	}

	be, err := connect(ctx, common)
	if err != nil {
		return err
	}
	defer be.Close()

	bar := newProgressBar(os.Stderr)
	res, err := be.Import(ctx, lines, nonEmptyLines(data), func(done int) { bar.set(float64(done) / float64(len(lines))) })
	bar.done()
	if err != nil {
		n := 0
		if res != nil {
			n = res.Imported + res.Deduped + res.Existing
		}
		return fmt.Errorf("import stopped after %d of %d memories: %w", n, len(lines), err)
	}
	if *asJSON {
		return printJSON(os.Stdout, res)
	}
	fmt.Fprintf(os.Stderr, "imported %d memories into %s (%d duplicates of live memories skipped, %d already present)\n",
		res.Imported, be.Describe(), res.Deduped, res.Existing)
	return nil
}

// startCPUProfile profiles the process's CPU into path until stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// nonEmptyLines maps 1-based line numbers to their bytes.
func nonEmptyLines(data []byte) map[int][]byte {
	out := map[int][]byte{}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out[i+1] = l
		}
	}
	return out
}

// progressBar draws a bar on a terminal and nothing elsewhere.
type progressBar struct {
	w     *os.File
	model progress.Model
	tty   bool
}

func newProgressBar(w *os.File) *progressBar {
	st, err := w.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0
	return &progressBar{w: w, model: progress.New(progress.WithWidth(40), progress.WithDefaultBlend()), tty: tty}
}

func (p *progressBar) set(frac float64) {
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", p.model.ViewAs(frac))
	}
}

func (p *progressBar) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
