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
	re := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	lazyRegexps = append(lazyRegexps, re)
	return re
}

// lazyRegexps are the package's lazy expressions, for the test that
// compiles them all (a bad one no longer fails at start-up).
var lazyRegexps []func() *regexp.Regexp

// onceRegexp is lazyRegexp for an expression made after start-up (inside
// a lazy table): compiled on its first use, not registered (the test
// reaches it through its table).
func onceRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
