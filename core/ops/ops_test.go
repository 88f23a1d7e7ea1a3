package ops_test

import (
	"sync"
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
	"github.com/cairnmem/cairn/core/ops"
	"github.com/cairnmem/cairn/core/pipeline"
)

// Every caller of a Service shares its Ops (the repair flights and the
// diagnostics cache live there), also when they ask at the same time; two
// services never share one.
func TestForIsOnePerService(t *testing.T) {
	a, b := apitest.NewStoreEnv(t).Svc, apitest.NewStoreEnv(t).Svc
	got := make([]*ops.Ops, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = ops.For(a) }()
	}
	wg.Wait()
	for i, o := range got {
		if o != got[0] {
			t.Fatalf("caller %d got another Ops", i)
		}
	}
	if ops.For(b) == got[0] {
		t.Fatal("two services share one Ops")
	}
	if p := pipeline.For(a); p != pipeline.For(a) || p == pipeline.For(b) {
		t.Fatal("pipeline.For is not one per service")
	}
}
