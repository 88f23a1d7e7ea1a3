package httpapi

import (
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/auth"
	"github.com/cairnmem/cairn/core/config"
)

// By default reads get one turn per CPU and writes four times as many,
// counted from the CPUs the process has, not from GOMAXPROCS (which
// SpareProc raises); a refusal names the kind of turn it waited for.
func TestAdmissionOneReadPerCPU(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(baseProcs + 3)
	a := newAdmission(config.ServerConfig{})
	if cap(a.reads) != baseProcs || cap(a.writes) != 4*baseProcs {
		t.Fatalf("%d read and %d write turns, want %d and %d", cap(a.reads), cap(a.writes), baseProcs, 4*baseProcs)
	}
	if a := newAdmission(config.ServerConfig{MaxConcurrent: 7}); cap(a.reads) != 7 || cap(a.writes) != 28 {
		t.Fatalf("server.max_concurrent 7: %d read and %d write turns", cap(a.reads), cap(a.writes))
	}
	for perm, kind := range map[string]string{auth.PermRecall: "reads", auth.PermRemember: "writes"} {
		w := httptest.NewRecorder()
		a.refuse(w, perm)
		if w.Code != 503 || !strings.Contains(w.Body.String(), kind+" are being served") || w.Header().Get("Retry-After") == "" {
			t.Fatalf("refusal of %s: %d %s", perm, w.Code, w.Body)
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
