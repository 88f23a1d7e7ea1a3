package connectors

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reading beneath a root without a time-of-check-to-time-of-use race.
//
// A walk by path decides from a directory entry that a file is regular;
// a later open of the same path follows whatever is there by then. A file
// swapped for a symbolic link between the two was read from outside the
// root, and one swapped for a FIFO blocked the sync (and with it the
// poller and shutdown) forever.
//
// So a sync holds the root folder open and never uses a path again:
//
//   - each folder is opened relative to its parent's handle with
//     O_DIRECTORY|O_NOFOLLOW (a link in its place fails to open), and its
//     entries are looked at with fstatat(AT_SYMLINK_NOFOLLOW);
//   - a file is opened beneath the root's handle without following any
//     link (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux
//     when the kernel has it, else one component at a time with
//     O_NOFOLLOW), with O_NONBLOCK (a FIFO never blocks the open) and
//     O_NOCTTY; the open handle is fstat'ed and read only when it is a
//     regular file and the same file (device and inode) the walk saw;
//   - reads run apart from the sync and give up when its context ends,
//     so shutdown never waits on a read that does not return (a stalled
//     network or FUSE file system).
//
// What remains trusted: the folders above the root (the user's own, named
// in the configuration), and hard links (a hard link is the file itself;
// the kernel's protected_hardlinks keeps another user from linking to
// files they cannot read).

// entryKind is what a directory entry is, as lstat sees it.
type entryKind uint8

const (
	kindOther entryKind = iota // FIFO, socket, device
	kindRegular
	kindDir
	kindSymlink
)

// entryInfo is what a walk or an open learns of one file.
type entryInfo struct {
	kind     entryKind
	size     int64
	mtime    time.Time
	dev, ino uint64
}

// sameFile reports whether two looks at a file saw the same file.
func (e entryInfo) sameFile(o entryInfo) bool { return e.dev == o.dev && e.ino == o.ino }

// errNotSame is a file replaced between the walk and the read.
var errNotSame = errors.New("replaced while the sync ran (it is read on the next one)")

// errNotRegular is a file that is no longer a regular file when opened.
var errNotRegular = errors.New("not a regular file when opened (a link, FIFO or device put in its place is never read)")

// readLimited reads at most limit+1 bytes with read, which is called on
// another goroutine: when ctx ends first, readLimited returns ctx's error
// at once and the read is left to finish (and done to run) on its own.
func readLimited(ctx context.Context, limit int64, read func(p []byte) (int, error), done func()) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer done()
		var buf []byte
		chunk := make([]byte, 64<<10)
		for int64(len(buf)) <= limit {
			if ctx.Err() != nil {
				ch <- result{nil, ctx.Err()}
				return
			}
			n, err := read(chunk[:min(int64(len(chunk)), limit+1-int64(len(buf)))])
			buf = append(buf, chunk[:max(n, 0)]...)
			if err != nil {
				ch <- result{nil, err}
				return
			}
			if n == 0 {
				break
			}
		}
		ch <- result{buf, nil}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errTooDeep is a folder past maxDepth.
func errTooDeep(depth int) error {
	return fmt.Errorf("folders nested deeper than %d are not read", depth)
}
