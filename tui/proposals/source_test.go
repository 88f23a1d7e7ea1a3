package proposals

import (
	"testing"

	"github.com/cairnmem/cairn/core/wire"
)

func TestSourceNamesSessionsAndMemories(t *testing.T) {
	for _, c := range []struct {
		src        string
		list, full string
	}{
		{"0190a1b2-c3d4-7e5f-8a9b-0000a002", "0000a002", "0000a002"},
		{"session:claude-code:7f3e9a", "session", "session claude-code:7f3e9a"},
	} {
		p := &wire.Proposal{SourceMemoryID: c.src}
		if got := source(p, false); got != c.list {
			t.Errorf("list source of %q = %q, want %q", c.src, got, c.list)
		}
		if got := source(p, true); got != c.full {
			t.Errorf("detail source of %q = %q, want %q", c.src, got, c.full)
		}
	}
	if past("reject") != "rejected" || past("approve") != "approved" {
		t.Errorf("past tense: %q %q", past("reject"), past("approve"))
	}
}
