package admission

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core/config"
)

// By default reads get two turns per CPU, of which one per CPU runs at a
// time, and writes four times as many turns, counted from the CPUs the
// process has, not from GOMAXPROCS (which SpareProc raises); a refusal
// names the kind of turn it waited for.
func TestAdmissionOneReadRunsPerCPU(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(baseProcs + 3)
	a := New(config.ServerConfig{})
	if cap(a.reads) != 2*baseProcs || cap(a.cpu) != baseProcs || cap(a.writes) != 8*baseProcs {
		t.Fatalf("%d read turns, %d running, %d write turns; want %d, %d and %d", cap(a.reads), cap(a.cpu), cap(a.writes),
			2*baseProcs, baseProcs, 8*baseProcs)
	}
	if a := New(config.ServerConfig{MaxConcurrent: 1}); cap(a.reads) != 1 || cap(a.cpu) != 1 || cap(a.writes) != 4 {
		t.Fatalf("server.max_concurrent 1: %d read turns, %d running, %d write turns", cap(a.reads), cap(a.cpu), cap(a.writes))
	}
	// Admitted reads beyond the CPUs wait for one to finish (here as long
	// as it takes); writes do not.
	a = New(config.ServerConfig{QueueTimeout: config.Duration(time.Hour)})
	ctx := context.Background()
	var running []func()
	for range baseProcs {
		release, ok := a.Enter(ctx, false)
		if !ok {
			t.Fatal("a read turn refused below the limit")
		}
		running = append(running, release)
	}
	waiting := make(chan func(), baseProcs)
	for range baseProcs {
		go func() {
			release, _ := a.Enter(ctx, false)
			waiting <- release
		}()
	}
	for len(a.reads) != 2*baseProcs { // admitted...
		runtime.Gosched()
	}
	select {
	case <-waiting:
		t.Fatal("a read ran with every CPU slot taken")
	default: // ...and waiting for a CPU
	}
	if release, ok := a.Enter(ctx, true); !ok {
		t.Fatal("a write waited behind reads")
	} else {
		release()
	}
	for _, release := range running {
		release()
		(<-waiting)() // one waiting read runs per slot given back
	}
	if len(a.cpu) != 0 || len(a.reads) != 0 {
		t.Fatalf("%d CPU slots and %d turns still held after every release", len(a.cpu), len(a.reads))
	}
	// A slot held for long (an export to a slow reader) delays the others
	// by server.queue_timeout at most: then they run beside it.
	a = New(config.ServerConfig{QueueTimeout: config.Duration(time.Millisecond)})
	var held []func()
	for range cap(a.cpu) {
		release, _ := a.Enter(ctx, false)
		held = append(held, release)
	}
	release, ok := a.Enter(ctx, false)
	if !ok || len(a.cpu) != cap(a.cpu) || len(a.reads) != cap(a.cpu)+1 {
		t.Fatalf("a read behind held slots: ok %v, %d slots, %d turns", ok, len(a.cpu), len(a.reads))
	}
	release()
	for _, r := range held {
		r()
	}
	if len(a.cpu) != 0 || len(a.reads) != 0 {
		t.Fatalf("%d CPU slots and %d turns still held after every release", len(a.cpu), len(a.reads))
	}
	for write, kind := range map[bool]string{false: "reads", true: "writes"} {
		if msg := a.Refusal(write); !strings.Contains(msg, kind+" are being served") {
			t.Fatalf("refusal of %s: %s", kind, msg)
		}
	}
}

// SpareProc runs one P more than the CPUs, unless GOMAXPROCS was set.
func TestSpareProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "")
	if got := SpareProc(); got != baseProcs+1 || runtime.GOMAXPROCS(0) != baseProcs+1 {
		t.Fatalf("SpareProc = %d, GOMAXPROCS %d; want %d", got, runtime.GOMAXPROCS(0), baseProcs+1)
	}
	runtime.GOMAXPROCS(1)
	t.Setenv("GOMAXPROCS", "1") // the user's choice stands
	if got := SpareProc(); got != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("with GOMAXPROCS=1 set: SpareProc = %d, GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
}
