package text_test

import (
	"encoding/json"
	"fmt"
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
