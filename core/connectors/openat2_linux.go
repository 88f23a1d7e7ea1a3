package connectors

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// errNoOpenat2 says to open one component at a time instead.
var errNoOpenat2 = errors.New("openat2 is not available")

// noOpenat2 remembers that the kernel (or a seccomp filter in a
// container) refused openat2, so it is not tried again.
var noOpenat2 atomic.Bool

// openat2Beneath opens rel beneath dirfd with openat2: the kernel resolves
// it without following any link (RESOLVE_NO_SYMLINKS, magic links
// included) and without leaving dirfd (RESOLVE_BENEATH). Linux 5.6 or
// later; errNoOpenat2 before that.
func openat2Beneath(dirfd int, rel string) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	how := &unix.OpenHow{
		Flags:   uint64(openFileFlags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for try := 0; ; try++ {
		fd, err := unix.Openat2(dirfd, rel, how)
		switch {
		case err == nil:
			return fd, nil
		case err == unix.EINTR, err == unix.EAGAIN && try < 100: // EAGAIN: a rename raced the lookup
			continue
		case err == unix.ENOSYS:
			noOpenat2.Store(true)
			return -1, errNoOpenat2
		case err == unix.EPERM:
			return -1, errNoOpenat2 // a seccomp filter's answer, maybe: the slower way is as safe
		}
		return -1, err
	}
}
