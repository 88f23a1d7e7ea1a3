// Package parallel splits CPU-bound work over the machine's cores (an
// import's per-line checks and preparation). A leaf: it imports nothing of
// cairn.
package parallel

import (
	"runtime"
	"sync"
)

// minPerWorker keeps small inputs on one goroutine: below it, starting
// more costs more than it saves.
const minPerWorker = 64

// Ranges runs fn over [0, n) split into one contiguous part per core (at
// most one part per minPerWorker items) and returns when every part is
// done.
func Ranges(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n/minPerWorker, 1))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}
