//go:build race

package hooks_test

// raceEnabled: the race detector slows the translated SQLite ~40x, so the
// heaviest tests scale down under it.
const raceEnabled = true
