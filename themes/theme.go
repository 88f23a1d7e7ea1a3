// Package themes holds the terminal UI's colour themes: a Theme is a set of
// semantic roles (text, faint, accent, selection, ...) that components ask
// for, never raw colours. Four themes are built in (dark, light, nord,
// gruvbox); users add their own as NAME.toml in the themes folder beside
// their config file.
package themes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed *.toml
var builtins embed.FS

// Names of the default themes for dark and light terminal backgrounds.
const (
	DefaultDark  = "dark"
	DefaultLight = "light"
)

// Theme is a named set of colours, one per semantic role.
type Theme struct {
	Name string

	Text        color.Color // body text
	Faint       color.Color // secondary text: ages, hints, separators
	Accent      color.Color // active tab, headings, keys in help
	Success     color.Color // confirmations
	Warning     color.Color // pending states, pinned marks
	Error       color.Color // failures, conflicts
	SelectionFG color.Color // selected row text
	SelectionBG color.Color // selected row background
	Border      color.Color // frames and rules
	Added       color.Color // diff: added lines
	Removed     color.Color // diff: removed lines
	StatusFG    color.Color // status bar text
	StatusBG    color.Color // status bar background
}

// roles maps each TOML key under [colors] to its field; every key is required.
func (t *Theme) roles() map[string]*color.Color {
	return map[string]*color.Color{
		"text": &t.Text, "faint": &t.Faint, "accent": &t.Accent, "success": &t.Success,
		"warning": &t.Warning, "error": &t.Error, "selection_fg": &t.SelectionFG,
		"selection_bg": &t.SelectionBG, "border": &t.Border, "added": &t.Added,
		"removed": &t.Removed, "status_fg": &t.StatusFG, "status_bg": &t.StatusBG,
	}
}

// ErrUnknown is returned (wrapped) for a theme name that is neither built
// in nor a file in the user's themes folder.
var ErrUnknown = errors.New("unknown theme")

// Builtin returns a built-in theme by name.
func Builtin(name string) (*Theme, error) {
	data, err := builtins.ReadFile(name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("%w %q (built in: %s)", ErrUnknown, name, strings.Join(BuiltinNames(), ", "))
	}
	return Parse("themes/"+name+".toml", data)
}

// MustBuiltin is Builtin for names known to exist (DefaultDark, DefaultLight).
func MustBuiltin(name string) *Theme {
	t, err := Builtin(name)
	if err != nil {
		panic(err)
	}
	return t
}

// BuiltinNames lists the built-in themes, sorted.
func BuiltinNames() []string {
	entries, _ := builtins.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	slices.Sort(names)
	return names
}

// Load finds a theme by name: userDir/NAME.toml first (so a user can
// override a built-in), then the built-ins.
func Load(name, userDir string) (*Theme, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("%w %q: a theme name is a file name without .toml", ErrUnknown, name)
	}
	if userDir != "" {
		path := filepath.Join(userDir, name+".toml")
		data, err := os.ReadFile(path)
		if err == nil {
			return Parse(path, data)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read theme %s: %w", path, err)
		}
	}
	t, err := Builtin(name)
	if errors.Is(err, ErrUnknown) && userDir != "" {
		return nil, fmt.Errorf("%w; no %s either", err, filepath.Join(userDir, name+".toml"))
	}
	return t, err
}

// file is a theme file's shape.
type file struct {
	Name   string            `toml:"name"`
	Colors map[string]string `toml:"colors"`
}

// Parse reads a theme from TOML. Errors name the file and the key.
func Parse(path string, data []byte) (*Theme, error) {
	var f file
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		return nil, fmt.Errorf("theme %s: %w", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return nil, fmt.Errorf("theme %s: unknown key %s", path, undec[0])
	}
	t := &Theme{Name: f.Name}
	if t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(path), ".toml")
	}
	roles := t.roles()
	for k, v := range f.Colors {
		dst, ok := roles[k]
		if !ok {
			return nil, fmt.Errorf("theme %s: unknown key colors.%s (known: %s)", path, k, strings.Join(roleNames(roles), ", "))
		}
		c, err := ParseHex(v)
		if err != nil {
			return nil, fmt.Errorf("theme %s: colors.%s: %w", path, k, err)
		}
		*dst = c
	}
	for _, k := range roleNames(roles) {
		if *roles[k] == nil {
			return nil, fmt.Errorf("theme %s: colors.%s is missing", path, k)
		}
	}
	return t, nil
}

func roleNames(roles map[string]*color.Color) []string {
	names := make([]string, 0, len(roles))
	for k := range roles {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// ParseHex reads "#rrggbb" or "#rgb".
func ParseHex(s string) (color.Color, error) {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) != 6 || !strings.HasPrefix(strings.TrimSpace(s), "#") {
		return nil, fmt.Errorf("%q is not a colour (want #rrggbb)", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return nil, fmt.Errorf("%q is not a colour (want #rrggbb)", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}
