//go:build unix

package connectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// dirHandle is an open folder beneath a sync's root.
type dirHandle struct {
	fd   int
	name string // for errors: the folder relative to the root
}

// Flags of every open: never follow a link in the last component, never
// block on a FIFO, never become a controlling terminal, never leak into
// a child process.
const (
	openDirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
	openFileFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
)

// openRoot opens a sync's root folder: path is the folder with its links
// resolved (allowedRoot checked it), and its last component must not be a
// link by now.
func openRoot(path string) (*dirHandle, entryInfo, error) {
	fd, err := retryEINTR(func() (int, error) { return unix.Open(path, openDirFlags, 0) })
	if err != nil {
		return nil, entryInfo{}, fmt.Errorf("open %s: %w", path, err)
	}
	info, err := fstat(fd)
	if err != nil || info.kind != kindDir {
		unix.Close(fd)
		return nil, entryInfo{}, fmt.Errorf("%s is not a folder", path)
	}
	return &dirHandle{fd: fd, name: "."}, info, nil
}

func (d *dirHandle) close() { unix.Close(d.fd) }

// names returns the names in the folder, at most max+1 of them (so the
// caller can tell that there were more than max).
func (d *dirHandle) names(max int) ([]string, error) {
	dup, err := retryEINTR(func() (int, error) { return unix.Dup(d.fd) })
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), d.name)
	defer f.Close()
	var out []string
	for len(out) <= max {
		batch, err := f.Readdirnames(min(1024, max+1-len(out)))
		out = append(out, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// lstat looks at name in the folder without following a link.
func (d *dirHandle) lstat(name string) (entryInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return entryInfo{}, err
		}
		return statInfo(&st), nil
	}
}

// openDir opens the subfolder name, which the walk saw as want: a link or
// anything else put in its place is refused.
func (d *dirHandle) openDir(name, rel string, want entryInfo) (*dirHandle, error) {
	fd, err := retryEINTR(func() (int, error) { return unix.Openat(d.fd, name, openDirFlags, 0) })
	if err != nil {
		if err == unix.ELOOP || err == unix.ENOTDIR {
			return nil, errNotRegular
		}
		return nil, err
	}
	info, err := fstat(fd)
	if err == nil && (info.kind != kindDir || !info.sameFile(want)) {
		err = errNotSame
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &dirHandle{fd: fd, name: rel}, nil
}

// openFile opens name in the folder (a .gitignore) without following a
// link or blocking, and returns it when it is a regular file.
func (d *dirHandle) openFile(name string) (*regularFile, error) {
	fd, err := retryEINTR(func() (int, error) { return unix.Openat(d.fd, name, openFileFlags, 0) })
	if err != nil {
		if err == unix.ELOOP {
			return nil, errNotRegular
		}
		return nil, err
	}
	return checkRegular(fd, nil)
}

// openBeneath opens the file at rel (relative to the root, '/'-separated)
// beneath the root without following any link, and returns it when it is
// the regular file the walk saw as want.
func (d *dirHandle) openBeneath(rel string, want entryInfo) (*regularFile, error) {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("%q is not a path beneath the root", rel)
		}
	}
	fd, err := openat2Beneath(d.fd, rel)
	if err == errNoOpenat2 {
		fd, err = openByComponents(d.fd, parts)
	}
	if err != nil {
		if err == unix.ELOOP || err == unix.EXDEV || err == unix.ENOTDIR {
			return nil, errNotRegular // a link on the way, or in the file's place
		}
		return nil, err
	}
	return checkRegular(fd, &want)
}

// openByComponents opens parts beneath dirfd one component at a time,
// each folder with O_DIRECTORY|O_NOFOLLOW and the file with O_NOFOLLOW:
// where openat2 is missing, no link is followed either.
func openByComponents(dirfd int, parts []string) (int, error) {
	cur := dirfd
	defer func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		next, err := retryEINTR(func() (int, error) { return unix.Openat(cur, p, openDirFlags, 0) })
		if err != nil {
			return -1, err
		}
		if cur != dirfd {
			unix.Close(cur)
		}
		cur = next
	}
	return retryEINTR(func() (int, error) { return unix.Openat(cur, parts[len(parts)-1], openFileFlags, 0) })
}

// regularFile is an open regular file.
type regularFile struct {
	fd   int
	info entryInfo
	once sync.Once
}

func (f *regularFile) close() { f.once.Do(func() { unix.Close(f.fd) }) }

// checkRegular keeps fd when it is a regular file (and, with want, the
// one the walk saw), else closes it.
func checkRegular(fd int, want *entryInfo) (*regularFile, error) {
	info, err := fstat(fd)
	switch {
	case err != nil:
	case info.kind != kindRegular:
		err = errNotRegular
	case want != nil && !info.sameFile(*want):
		err = errNotSame
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &regularFile{fd: fd, info: info}, nil
}

// readAll reads the file, at most limit+1 bytes, and closes it; it gives
// up when ctx ends (see readLimited).
func (f *regularFile) readAll(ctx context.Context, limit int64) ([]byte, error) {
	return readLimited(ctx, limit, func(p []byte) (int, error) {
		for {
			n, err := unix.Read(f.fd, p)
			if err == unix.EINTR {
				continue
			}
			if err == unix.EAGAIN {
				return 0, errors.New("read would block")
			}
			return n, err
		}
	}, f.close)
}

func fstat(fd int) (entryInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(fd, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return entryInfo{}, err
		}
		return statInfo(&st), nil
	}
}

func statInfo(st *unix.Stat_t) entryInfo {
	info := entryInfo{size: st.Size, dev: uint64(st.Dev), ino: uint64(st.Ino)}
	sec, nsec := st.Mtim.Unix()
	info.mtime = time.Unix(sec, nsec)
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		info.kind = kindRegular
	case unix.S_IFDIR:
		info.kind = kindDir
	case unix.S_IFLNK:
		info.kind = kindSymlink
	}
	return info
}

func retryEINTR(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != unix.EINTR {
			return fd, err
		}
	}
}
