package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Keeping cairn running with the user's service manager: a systemd user
// unit on Linux, a launchd agent on macOS. cairn only writes (or removes)
// the file and prints the command that enables it: it never runs
// systemctl or launchctl itself.

const serviceUsage = "service install|uninstall|status [--json] [--home DIR] [--config FILE] [--db FILE] [--addr HOST:PORT]"

// Service file names.
const (
	systemdUnitName = "cairn.service"
	launchdLabel    = "com.cairnmem.cairn"
)

// serviceEnv is what a service command depends on, so tests can give it a
// temporary home, a platform and a binary path.
type serviceEnv struct {
	goos   string
	home   string // the user's home folder
	exe    string // the absolute path of the cairn binary
	getenv func(string) string
}

func runServiceCommand(ctx context.Context, args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the cairn binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	return serviceMain(args, serviceEnv{goos: runtime.GOOS, home: home, exe: exe, getenv: os.Getenv}, os.Stdout)
}

func serviceMain(args []string, env serviceEnv, stdout io.Writer) error {
	fs, common := newFlagSet("service", serviceUsage)
	asJSON := fs.Bool("json", false, "status: print {installed, file, current, check} as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: cairn " + serviceUsage}
	}
	file, content, enable, disable, err := serviceFile(env, common)
	if err != nil {
		return err
	}
	switch pos[0] {
	case "install":
		if err := checkServiceBinary(env.exe); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, content, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", file, err)
		}
		fmt.Fprintf(stdout, "wrote %s (runs %s serve; restarted if it fails)\n", file, env.exe)
		fmt.Fprintf(stdout, "enable and start it now and at every login with:\n  %s\n", enable)
		return nil
	case "uninstall":
		if err := os.Remove(file); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stdout, "not installed: no %s\n", file)
			return nil
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s\nif it was enabled, stop it with:\n  %s\n", file, disable)
		return nil
	case "status":
		have, err := os.ReadFile(file)
		check := "systemctl --user status cairn"
		if env.goos == "darwin" {
			check = "launchctl print gui/$(id -u)/" + launchdLabel
		}
		if *asJSON && (err == nil || errors.Is(err, os.ErrNotExist)) {
			installed := err == nil
			return json.NewEncoder(stdout).Encode(map[string]any{"installed": installed, "file": file,
				"current": installed && bytes.Equal(have, content), "check": check})
		}
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stdout, "not installed (no %s); install with: cairn service install\n", file)
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "installed: %s\n", file)
		if !bytes.Equal(have, content) {
			fmt.Fprintf(stdout, "it differs from what `cairn service install` would write now (another binary or other flags); run it again to update\n")
		}
		fmt.Fprintf(stdout, "check it with: %s\n", check)
		return nil
	}
	return usageError{fmt.Sprintf("unknown service action %q: cairn %s", pos[0], serviceUsage)}
}

// serviceFile is the service definition for env's platform: where it
// goes, its content, and the commands that enable and disable it.
func serviceFile(env serviceEnv, common *commonFlags) (path string, content []byte, enable, disable string, err error) {
	args := []string{env.exe, "serve"}
	for _, f := range []struct{ name, value string }{
		{"--home", common.home}, {"--config", common.config}, {"--db", common.db}, {"--addr", common.addr},
	} {
		if f.value == "" {
			continue
		}
		v := f.value
		if f.name != "--addr" {
			if v, err = filepath.Abs(v); err != nil {
				return "", nil, "", "", err
			}
		}
		args = append(args, f.name, v)
	}
	// A CAIRN_HOME in force now stays in force for the service.
	var envs []string
	if h := env.getenv("CAIRN_HOME"); h != "" && common.home == "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", nil, "", "", err
		}
		envs = append(envs, "CAIRN_HOME="+abs)
	}
	switch env.goos {
	case "linux":
		dir := filepath.Join(env.home, ".config")
		if x := env.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			dir = x
		}
		path = filepath.Join(dir, "systemd", "user", systemdUnitName)
		var b strings.Builder
		b.WriteString("[Unit]\nDescription=cairn: local memory for AI coding agents\nDocumentation=https://github.com/cairnmem/cairn\n\n")
		b.WriteString("[Service]\nType=simple\nExecStart=" + systemdCommand(args) + "\nRestart=on-failure\nRestartSec=5\n")
		for _, e := range envs {
			b.WriteString("Environment=" + systemdQuote(e) + "\n")
		}
		b.WriteString("\n[Install]\nWantedBy=default.target\n")
		return path, []byte(b.String()), "systemctl --user daemon-reload && systemctl --user enable --now cairn",
			"systemctl --user disable --now cairn", nil
	case "darwin":
		path = filepath.Join(env.home, "Library", "LaunchAgents", launchdLabel+".plist")
		var b bytes.Buffer
		b.WriteString(xml.Header + `<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
		b.WriteString("<plist version=\"1.0\">\n<dict>\n\t<key>Label</key>\n\t<string>" + launchdLabel + "</string>\n\t<key>ProgramArguments</key>\n\t<array>\n")
		for _, a := range args {
			b.WriteString("\t\t<string>" + xmlEscape(a) + "</string>\n")
		}
		b.WriteString("\t</array>\n")
		if len(envs) > 0 {
			b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
			for _, e := range envs {
				k, v, _ := strings.Cut(e, "=")
				b.WriteString("\t\t<key>" + xmlEscape(k) + "</key>\n\t\t<string>" + xmlEscape(v) + "</string>\n")
			}
			b.WriteString("\t</dict>\n")
		}
		// Restarted when it fails, not when it stops cleanly.
		b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n</dict>\n</plist>\n")
		return path, b.Bytes(), "launchctl bootstrap gui/$(id -u) " + path, "launchctl bootout gui/$(id -u)/" + launchdLabel, nil
	}
	return "", nil, "", "", fmt.Errorf("cairn service supports Linux (systemd) and macOS (launchd), not %s: run `cairn serve` with your service manager", env.goos)
}

// checkServiceBinary refuses a binary that will not be there for long: one
// `go run` or `go test` built in a temporary folder (go-build…), or Go's
// build cache.
func checkServiceBinary(exe string) error {
	if !filepath.IsAbs(exe) {
		return fmt.Errorf("the cairn binary path %q is not absolute", exe)
	}
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return fmt.Errorf("%s is a temporary build (go run or go test): build cairn (go build -o ~/.local/bin/cairn .) and run that binary's `cairn service install`", exe)
		}
	}
	return nil
}

// systemdCommand renders args for ExecStart, quoting what needs it.
func systemdCommand(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = systemdQuote(a)
	}
	return strings.Join(out, " ")
}

func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
