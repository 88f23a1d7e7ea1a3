package text

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use rather than when the program
// starts: every cairn process links this package, most (hooks, the MCP
// proxy, version) never match its expressions, and compiling them all
// at start-up cost milliseconds each time.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
