package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHookShimReadsTranscriptBounded: the shim, not the server, reads the
// transcript, and only a regular file, never more than transcriptReadMax
// bytes of it: a FIFO or /dev/zero cannot hang or spin it.
func TestHookShimReadsTranscriptBounded(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "t.jsonl")
	os.WriteFile(small, []byte(`{"type":"user","message":{"role":"user","content":"ship it on tuesday"}}`+"\n"), 0o600)
	in := map[string]any{"transcript_path": small}
	attachTranscript(in, 1000)
	if in["transcript"] != "User: ship it on tuesday" || in["transcript_path"] != nil {
		t.Fatalf("attached: %v", in)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir, filepath.Join(dir, "missing")} {
		done := make(chan error, 1)
		go func() { _, err := readTranscript(p, 1000); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s was read as a transcript", p)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("reading %s did not return", p) // a hang, not a slow read
		}
		in := map[string]any{"transcript_path": p}
		attachTranscript(in, 1000)
		if _, has := in["transcript"]; has || in["transcript_path"] != nil {
			t.Errorf("%s: %v", p, in)
		}
	}

	// A file larger than the read bound: its beginning and its end are
	// read, the middle is not.
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	line := func(s string) string {
		return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q}}`+"\n", s)
	}
	f.WriteString(line("FIRST question of the session"))
	filler := line(strings.Repeat("middle ", 500))
	for written := 0; written < transcriptReadMax+(4<<20); written += len(filler) {
		f.WriteString(filler)
	}
	f.WriteString(line("LAST question of the session"))
	f.Close()
	got, err := readTranscript(big, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Text, "FIRST question") || !strings.Contains(got.Text, "LAST question") {
		t.Fatalf("head or tail missing from a large transcript (%d chars)", len(got.Text))
	}
	// What was left out is said: the session's record keeps the warning.
	if w := got.Warning(); !strings.Contains(w, "cut to its beginning and end") {
		t.Fatalf("a huge transcript's warning = %q", w)
	}
}
