package text

import (
	"sync"
	"testing"
)

// TestLazyRegexps compiles every lazy expression of the package and builds
// its lazy tables, from several goroutines at once: each must compile (they
// did at start-up before) and be safe for concurrent first use (go test
// -race).
func TestLazyRegexps(t *testing.T) {
	if len(lazyRegexps) == 0 {
		t.Fatal("no lazy expressions registered")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, v := range vendorTokens() {
				if v.re() == nil {
					t.Error("nil expression")
				}
			}
			for _, r := range commandRules() {
				if r.re() == nil {
					t.Error("nil expression")
				}
			}
			vendorsByFirst()
			for _, re := range lazyRegexps {
				if re() == nil {
					t.Error("nil expression")
				}
			}
		})
	}
	wg.Wait()
}
