package connectors_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/connectors"
)

// Where openat2 is missing (Linux before 5.6, or refused by a seccomp
// filter), files open one component at a time with O_NOFOLLOW: the same
// swaps are refused the same way.
func TestConnectorSwapsWithoutOpenat2(t *testing.T) {
	defer connectors.WithoutOpenat2()()
	swapAfterWalk(t)
}
