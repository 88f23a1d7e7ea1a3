package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckBinary refuses a binary that will not be there tomorrow:
// one `go run` built in Go's build cache, or one in a temporary folder
// ($TMPDIR, /tmp), saying how to install into agent instead (or to insist
// with --force: a test machine's binary may live there on purpose).
func CheckBinary(bin, agent string) error {
	var inside []string
	if t := os.TempDir(); t != "" {
		inside = append(inside, t)
	}
	if filepath.Separator == '/' {
		inside = append(inside, "/tmp")
	}
	if c := os.Getenv("GOCACHE"); c != "" {
		inside = append(inside, c)
	}
	if c, err := os.UserCacheDir(); err == nil {
		inside = append(inside, filepath.Join(c, "go-build"))
	}
	temporary := strings.Contains(filepath.ToSlash(bin), "/go-build")
	for _, dir := range inside {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		if rel, err := filepath.Rel(dir, bin); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			temporary = true
		}
	}
	if !temporary {
		return nil
	}
	return fmt.Errorf("%s is a temporary build (go run, or a temporary folder) that will be gone later, so the hooks would break; "+
		"build cairn where it stays and install from there: go build -o ~/.local/bin/cairn . && ~/.local/bin/cairn install %s (or go install . and run cairn install %[2]s); "+
		"to install this binary anyway, add --force", bin, agent)
}

// ShellQuote quotes s for a POSIX shell when it needs it (a command line a
// harness runs, like the hooks' PROGRAM hook EVENT).
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
