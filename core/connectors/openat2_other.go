//go:build unix && !linux

package connectors

import "errors"

// errNoOpenat2 says to open one component at a time instead.
var errNoOpenat2 = errors.New("openat2 is not available")

// openat2Beneath: openat2 is Linux's; elsewhere files are opened one
// component at a time with O_NOFOLLOW (openByComponents).
func openat2Beneath(int, string) (int, error) { return -1, errNoOpenat2 }
