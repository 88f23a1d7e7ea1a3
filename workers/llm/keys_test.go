package llm

import (
	"strings"
	"testing"
)

// TestErrorsNameRealConfigKeys: an error about the provider names the
// key a person can set (in [pipeline_v2]).
func TestErrorsNameRealConfigKeys(t *testing.T) {
	if _, err := New("gpt-nine", Config{}); err == nil || !strings.Contains(err.Error(), "pipeline_v2.provider") {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := New("heuristic", Config{Timeout: -1}); err == nil || !strings.Contains(err.Error(), "pipeline_v2.timeout") {
		t.Fatalf("negative timeout: %v", err)
	}
}
