package jsonedit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core/harness/jsonedit"
)

const userFile = `{
    "model": "opus",
    "hooks": {
        "Stop": [ {"hooks": [{"type": "command", "command": "notify-send done"}]} ],
        "Other":   {"kept":   "as written"}
    },
    "permissions": {"allow": ["Bash(go test:*)"]}
}
`

// An edit of one nested key leaves every other key where it was and as it
// was written, and renders the changed one in the file's indentation.
func TestEditKeepsOrderAndFormatting(t *testing.T) {
	top, err := jsonedit.Parse([]byte(userFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(top.Keys(), ","); got != "model,hooks,permissions" {
		t.Fatalf("keys %s", got)
	}
	hooks, err := top.Object("hooks")
	if err != nil {
		t.Fatal(err)
	}
	hooks.Set("SessionStart", json.RawMessage(`[{"hooks":[{"type":"command","command":"cairn hook session-start"}]}]`))
	if err := top.SetObject("hooks", hooks); err != nil {
		t.Fatal(err)
	}
	top.Set("model", json.RawMessage(`"opus"`)) // the same value: not an edit
	out, err := top.MarshalKeeping(jsonedit.DetectIndent([]byte(userFile)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "model": "opus",
    "hooks": {
        "Stop": [ {"hooks": [{"type": "command", "command": "notify-send done"}]} ],
        "Other": {"kept":   "as written"},
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "cairn hook session-start"
                    }
                ]
            }
        ]
    },
    "permissions": {"allow": ["Bash(go test:*)"]}
}
`
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	hooks.Del("SessionStart")
	hooks.Del("missing")
	if err := top.SetObject("hooks", hooks); err != nil {
		t.Fatal(err)
	}
	out, _ = top.MarshalKeeping("    ")
	if jsonedit.Compact(out) != jsonedit.Compact([]byte(userFile)) {
		t.Fatalf("after removing the key again:\n%s", out)
	}
}

func TestParseRefusesWhatIsNotOneObject(t *testing.T) {
	for _, in := range []string{`[1]`, `"x"`, `{"a": 1} {"b": 2}`, `{"a": }`, ``} {
		if _, err := jsonedit.Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) took it", in)
		}
	}
	top, _ := jsonedit.Parse([]byte(`{"a": null, "b": 1}`))
	if o, err := top.Object("a"); err != nil || len(o.Keys()) != 0 {
		t.Fatalf("null as an object: %v %v", o, err)
	}
	if _, err := top.Object("b"); err == nil {
		t.Fatal("a number as an object")
	}
}

func TestDetectIndent(t *testing.T) {
	for in, want := range map[string]string{
		"{\n\t\"a\": 1\n}": "\t",
		"{\n  \"a\": 1\n}": "  ",
		`{"a": 1}`:         "  ",
	} {
		if got := jsonedit.DetectIndent([]byte(in)); got != want {
			t.Errorf("DetectIndent(%q) = %q, want %q", in, got, want)
		}
	}
}

// EditFile creates a missing file, writes no backup and nothing at all when
// the edit changes nothing, and keeps the old file and its mode when it
// does.
func TestEditFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	set := func(o *jsonedit.Object) error { o.Set("cairn", json.RawMessage(`true`)); return nil }
	changed, backup, err := jsonedit.EditFile(path, set)
	if err != nil || !changed || backup != "" {
		t.Fatalf("fresh file: %v %q %v", changed, backup, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\n  \"cairn\": true\n}\n" {
		t.Fatalf("fresh file holds %q", b)
	}

	if err := os.WriteFile(path, []byte(userFile), 0o600); err != nil || os.Chmod(path, 0o640) != nil {
		t.Fatal(err)
	}
	changed, backup, err = jsonedit.EditFile(path, func(*jsonedit.Object) error { return nil })
	if err != nil || changed || backup != "" {
		t.Fatalf("no edit: %v %q %v", changed, backup, err)
	}
	changed, backup, err = jsonedit.EditFile(path, set)
	if err != nil || !changed || !strings.HasPrefix(backup, path+".cairn-backup-") {
		t.Fatalf("edit: %v %q %v", changed, backup, err)
	}
	if b, _ := os.ReadFile(backup); string(b) != userFile {
		t.Fatalf("backup holds %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", st.Mode())
	}
	if _, err := os.Stat(path + ".cairn-tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}

	if err := os.WriteFile(path, []byte(`[1, 2]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := jsonedit.EditFile(path, set); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("an array: %v", err)
	}
}
