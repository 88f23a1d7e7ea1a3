package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cairnmem/cairn/core/httpapi"

	"charm.land/bubbles/v2/progress"
	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func runExport(ctx context.Context, args []string) error {
	fs, common := newFlagSet("export", "export [-o FILE] [--include-deleted]")
	out := fs.String("o", "", "write to FILE instead of standard output")
	includeDeleted := fs.Bool("include-deleted", false, "also export soft-deleted memories")
	if _, err := parseFlags(fs, args); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	be, err := a.openBackend(ctx)
	if err != nil {
		return err
	}
	defer be.Close()

	var w io.Writer = os.Stdout
	var f *os.File
	if *out != "" {
		// Write beside the target and rename at the end, so a failed export
		// never leaves a truncated file under the real name.
		f, err = os.CreateTemp(dirOf(*out), ".cairn-export-*")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		w = f
	}
	bw := bufio.NewWriter(w)
	n := 0
	err = be.Export(ctx, storage.MemoryFilter{IncludeDeleted: *includeDeleted}, func(line json.RawMessage) error {
		n++
		bw.Write(line)
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return err
		}
		if err := os.Rename(f.Name(), *out); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "exported %d memories from %s\n", n, be.Describe())
	return nil
}

func dirOf(p string) string {
	if i := bytes.LastIndexByte([]byte(p), '/'); i >= 0 {
		return p[:i+1]
	}
	return "."
}

// importChunk is how many lines go to the store (or the API) at a time.
const importChunk = 1000

func runImport(ctx context.Context, args []string) error {
	fs, common := newFlagSet("import", "import FILE (or - for standard input)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
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
	raw := nonEmptyLines(data)

	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	be, err := a.openBackend(ctx)
	if err != nil {
		return err
	}
	defer be.Close()

	bar := newProgressBar(os.Stderr)
	total := &core.ImportResult{}
	for start := 0; start < len(lines); start += importChunk {
		end := min(start+importChunk, len(lines))
		var rawChunk [][]byte
		for _, l := range lines[start:end] {
			rawChunk = append(rawChunk, raw[l.Line])
		}
		res, err := be.Import(ctx, lines[start:end], rawChunk)
		if err != nil {
			bar.done()
			return fmt.Errorf("import stopped after %d of %d memories: %w", total.Imported+total.Deduped+total.Existing, len(lines), err)
		}
		total.Total += res.Total
		total.Imported += res.Imported
		total.Deduped += res.Deduped
		total.Existing += res.Existing
		bar.set(float64(end) / float64(len(lines)))
	}
	bar.done()
	fmt.Fprintf(os.Stderr, "imported %d memories into %s (%d duplicates of live memories skipped, %d already present)\n",
		total.Imported, be.Describe(), total.Deduped, total.Existing)
	return nil
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
