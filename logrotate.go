package main

import (
	"fmt"
	"os"
	"sync"
)

// The log file is rotated by size: when a write would take cairn.log past
// logMaxBytes it becomes cairn.log.1 (cairn.log.1 becomes .2, and so on),
// the oldest beyond logKeep is removed, and a fresh cairn.log is started.
const (
	logMaxBytes = 10 << 20
	logKeep     = 3
)

// rotatingFile is an append-only log file that rotates itself by size.
// It is safe for concurrent writers; a line is never split across files.
type rotatingFile struct {
	mu   sync.Mutex
	path string
	max  int64
	keep int
	f    *os.File
	size int64
}

// openRotating opens (or creates) path for appending.
func openRotating(path string, max int64, keep int) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, st.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			// Keep logging to the current file rather than lose lines.
			fmt.Fprintf(os.Stderr, "cairn: rotate log %s: %v\n", r.path, err)
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts path.N to path.N+1 (dropping the ones past keep), moves
// path to path.1 and reopens path empty.
func (r *rotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	r.f = nil
	os.Remove(fmt.Sprintf("%s.%d", r.path, r.keep))
	for i := r.keep - 1; i >= 1; i-- {
		old := fmt.Sprintf("%s.%d", r.path, i)
		if _, err := os.Stat(old); err == nil {
			if err := os.Rename(old, fmt.Sprintf("%s.%d", r.path, i+1)); err != nil {
				return r.reopen(err)
			}
		}
	}
	var renameErr error
	if r.keep > 0 {
		renameErr = os.Rename(r.path, r.path+".1")
	} else {
		renameErr = os.Truncate(r.path, 0)
	}
	return r.reopen(renameErr)
}

// reopen opens the log file again after a rotation, reporting cause (the
// rotation's own failure) first.
func (r *rotatingFile) reopen(cause error) error {
	if err := r.open(); err != nil {
		return err
	}
	return cause
}

// Close closes the current file.
func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
