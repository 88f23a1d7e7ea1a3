package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/cairnmem/cairn/core"
)

// runExport is `cairn export`: every memory as one JSON line, to a file
// (written whole or not at all) or standard output.
func runExport(ctx context.Context, args []string) error {
	fs, common := newFlagSet("export", "export [-o FILE] [--include-deleted]")
	out := fs.String("o", "", "write to FILE instead of standard output")
	includeDeleted := fs.Bool("include-deleted", false, "also export soft-deleted memories")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	be, err := connect(ctx, common)
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
	err = be.Export(ctx, core.MemoryFilter{IncludeDeleted: *includeDeleted}, func(line json.RawMessage) error {
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
