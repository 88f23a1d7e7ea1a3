package text_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/text"
)

func TestNormalizeTranscriptCapsHugeInput(t *testing.T) {
	var b strings.Builder
	big := strings.Repeat("x", 9<<20) // one line over the 8 MiB line limit: skipped
	b.WriteString(`{"type":"user","message":{"role":"user","content":"FIRST"}}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"user","content":"` + big + `"}}` + "\n")
	for i := range 20000 {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"reply %d é"}]}}`+"\n", i)
	}
	b.WriteString(`{"type":"user","message":{"role":"user","content":"LAST"}}`)
	tr, err := text.NormalizeTranscript(strings.NewReader(b.String()), 10000)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Truncated || len(tr.Text) > 10100 || !strings.HasPrefix(tr.Text, "User: FIRST") || !strings.HasSuffix(tr.Text, "User: LAST") ||
		!strings.Contains(tr.Text, "bytes of transcript omitted") || strings.Contains(tr.Text, "xxxx") || tr.SourceBytes != int64(b.Len()) {
		t.Fatalf("truncated=%v len=%d head=%q tail=%q", tr.Truncated, len(tr.Text), tr.Text[:40], tr.Text[len(tr.Text)-40:])
	}
	if !json.Valid([]byte(`"` + strings.ReplaceAll(tr.Text, "\n", `\n`) + `"`)) {
		t.Fatal("cut inside a rune")
	}
}

// errAfter reads r, then fails: a transcript whose reading stops midway.
type errAfter struct{ r io.Reader }

func (e *errAfter) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errors.New("input/output error")
	}
	return n, err
}

// What cannot be read of a transcript is left out and said, never an
// error: a damaged first record, lines that are not JSON, binary lines,
// a read that stops midway.
func TestNormalizeTranscriptKeepsWhatItCanRead(t *testing.T) {
	user := func(s string) string {
		return `{"type":"user","message":{"role":"user","content":"` + s + `"}}` + "\n"
	}
	in := `{"type":"user","message":{"role":` + "\n" + user("first readable prompt") + "not json at all\n\x00\x01\x02\xff binary\n" + user("second readable prompt")
	tr, err := text.NormalizeTranscript(&errAfter{strings.NewReader(in)}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != "User: first readable prompt\nUser: second readable prompt" || tr.Format != "claude-code" {
		t.Fatalf("read %q as %s", tr.Text, tr.Format)
	}
	if tr.Skipped != 3 || tr.ReadErr != "input/output error" {
		t.Fatalf("skipped %d, read error %q", tr.Skipped, tr.ReadErr)
	}
	if w := tr.Warning(); !strings.Contains(w, "3 unreadable lines left out") || !strings.Contains(w, "input/output error") {
		t.Fatalf("warning %q", w)
	}
	// Plain text: binary lines are left out, the rest kept.
	tr, err = text.NormalizeTranscript(strings.NewReader("User: we deploy on fridays\n\x00\x00\x00\nAssistant: noted\n"), 1<<20)
	if err != nil || tr.Text != "User: we deploy on fridays\nAssistant: noted" || tr.Skipped != 1 || tr.Format != "text" {
		t.Fatalf("text transcript: %+v, %v", tr, err)
	}
	// All of it read: no warning.
	if tr, _ := text.NormalizeTranscript(strings.NewReader(user("fine")), 1<<20); tr.Warning() != "" {
		t.Fatalf("warning for a clean transcript: %q", tr.Warning())
	}
}
