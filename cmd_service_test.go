package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceInstallLinux writes the systemd user unit into a temporary
// home, prints the command that enables it, reports it, and removes it.
// Nothing runs systemctl.
func TestServiceInstallLinux(t *testing.T) {
	home := t.TempDir()
	exe := filepath.Join(home, "bin", "cairn")
	env := serviceEnv{goos: "linux", home: home, exe: exe, getenv: func(k string) string {
		if k == "CAIRN_HOME" {
			return "/srv/cairn home"
		}
		return ""
	}}
	var out bytes.Buffer
	if err := serviceMain([]string{"install", "--addr", "127.0.0.1:3851"}, env, &out); err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "cairn.service")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatalf("no unit written: %v", err)
	}
	for _, want := range []string{"ExecStart=" + exe + " serve --addr 127.0.0.1:3851\n", "Restart=on-failure\n",
		`Environment="CAIRN_HOME=/srv/cairn home"`, "WantedBy=default.target"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("unit lacks %q:\n%s", want, b)
		}
	}
	if !strings.Contains(out.String(), "systemctl --user enable --now cairn") {
		t.Errorf("install does not print the enable command:\n%s", out.String())
	}
	out.Reset()
	if err := serviceMain([]string{"status", "--addr", "127.0.0.1:3851"}, env, &out); err != nil || !strings.Contains(out.String(), "installed: "+unit) ||
		strings.Contains(out.String(), "differs") {
		t.Errorf("status: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := serviceMain([]string{"status", "--json", "--addr", "127.0.0.1:3851"}, env, &out); err != nil ||
		out.String() != `{"check":"systemctl --user status cairn","current":true,"file":"`+unit+`","installed":true}`+"\n" {
		t.Errorf("status --json: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := serviceMain([]string{"uninstall"}, env, &out); err != nil || !strings.Contains(out.String(), "systemctl --user disable --now cairn") {
		t.Errorf("uninstall: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Errorf("the unit is still there: %v", err)
	}
	out.Reset()
	if err := serviceMain([]string{"status"}, env, &out); err != nil || !strings.Contains(out.String(), "not installed") {
		t.Errorf("status after uninstall: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := serviceMain([]string{"status", "--json"}, env, &out); err != nil || !strings.Contains(out.String(), `"installed":false`) {
		t.Errorf("status --json after uninstall: %v\n%s", err, out.String())
	}
}

// TestServiceInstallMacOS writes a well-formed launchd agent.
func TestServiceInstallMacOS(t *testing.T) {
	home := t.TempDir()
	exe := "/Applications/My Tools/cairn&co"
	env := serviceEnv{goos: "darwin", home: home, exe: exe, getenv: func(string) string { return "" }}
	var out bytes.Buffer
	if err := serviceMain([]string{"install"}, env, &out); err != nil {
		t.Fatal(err)
	}
	plist := filepath.Join(home, "Library", "LaunchAgents", "com.cairnmem.cairn.plist")
	b, err := os.ReadFile(plist)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var strs []string
	inString := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the plist is not well-formed XML: %v\n%s", err, b)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inString = v.Name.Local == "string"
		case xml.CharData:
			if inString {
				strs = append(strs, string(v))
			}
		case xml.EndElement:
			inString = false
		}
	}
	if strings.Join(strs, "|") != "com.cairnmem.cairn|"+exe+"|serve" {
		t.Errorf("plist strings = %q", strs)
	}
	if !strings.Contains(out.String(), "launchctl bootstrap gui/$(id -u) "+plist) {
		t.Errorf("install output:\n%s", out.String())
	}
}

// TestServiceRefusesTemporaryBinary: a `go run` or `go test` binary is
// gone after the run; the service would fail at the next login.
func TestServiceRefusesTemporaryBinary(t *testing.T) {
	home := t.TempDir()
	for _, exe := range []string{"/tmp/go-build1234/b001/exe/cairn", filepath.Join(home, ".cache", "go-build", "ab", "cairn")} {
		env := serviceEnv{goos: "linux", home: home, exe: exe, getenv: func(string) string { return "" }}
		err := serviceMain([]string{"install"}, env, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "temporary build") {
			t.Errorf("install with %s: %v", exe, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "systemd")); !os.IsNotExist(err) {
		t.Errorf("a refused install wrote something: %v", err)
	}
	env := serviceEnv{goos: "plan9", home: home, exe: "/usr/bin/cairn", getenv: func(string) string { return "" }}
	if err := serviceMain([]string{"install"}, env, io.Discard); err == nil {
		t.Errorf("install on an unsupported system succeeded")
	}
}
