package shim

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/cairnmem/cairn/core/text"
)

// transcriptReadMax bounds what the shim reads of a transcript file: a
// larger file is read as its first and last halves of this size (the
// start of a session and its end matter most), so neither time nor memory
// grows with the file.
const transcriptReadMax = 32 << 20

// attachTranscript replaces in's transcript_path by the transcript's
// normalized text (within maxChars characters, beginning and end kept).
// A path that cannot be read is dropped with a note on stderr: the session
// end is still recorded.
func attachTranscript(in map[string]any, maxChars int) {
	p, _ := in["transcript_path"].(string)
	delete(in, "transcript_path")
	if p == "" {
		return
	}
	if s, _ := in["transcript"].(string); s != "" {
		return // the harness sent the text itself
	}
	tr, err := readTranscript(p, maxChars)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cairn hook: transcript:", err)
		return
	}
	in["transcript"] = tr.Text
	if w := tr.Warning(); w != "" {
		in["transcript_warning"] = w
	}
}

// readTranscript reads and normalizes a transcript file: a regular file
// only (a FIFO or a device would block or never end), at most
// transcriptReadMax bytes of it. What cannot be read of it is left out
// and said in the transcript's warning.
func readTranscript(path string, maxChars int) (*text.Transcript, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	var r io.Reader = f
	if size := st.Size(); size > transcriptReadMax {
		half := int64(transcriptReadMax / 2)
		r = io.MultiReader(io.NewSectionReader(f, 0, half), strings.NewReader("\n"), io.NewSectionReader(f, size-half, half))
	}
	tr, err := text.NormalizeTranscript(io.LimitReader(r, transcriptReadMax+1), maxChars)
	if err != nil {
		return nil, err
	}
	if st.Size() > transcriptReadMax {
		tr.Truncated = true // the middle of the file was not read
	}
	return tr, nil
}
