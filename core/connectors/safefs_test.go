package connectors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A read that never returns (a stalled network or FUSE file system) does
// not hold the sync: readLimited gives up when the context ends, and the
// file is closed once the read finally returns.
func TestReadLimitedHonoursTheContext(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := readLimited(ctx, 100, func(p []byte) (int, error) {
		<-release
		return 0, nil
	}, func() { close(closed) })
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("readLimited = %v after %s", err, time.Since(start))
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the file was never closed")
	}
	// Bounded: at most limit+1 bytes, so the caller can tell "too large".
	b, err := readLimited(context.Background(), 10, func(p []byte) (int, error) { return copy(p, strings.Repeat("x", len(p))), nil }, func() {})
	if err != nil || len(b) != 11 {
		t.Fatalf("read %d bytes, %v; want 11", len(b), err)
	}
}
