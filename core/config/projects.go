package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ProjectConfig is one [projects.NAME] table. A project's identity is its
// repository root (core/project); NAME is its display name, and NAME and
// every alias resolve to Root wherever a user names a project (`cairn
// remember --project NAME`, the API, MCP):
//
//	[projects.atlas]
//	root = "/home/dev/atlas"
//	aliases = ["atlas-api"]
type ProjectConfig struct {
	// Root is the project's folder, an absolute path: usually the
	// repository root, or any folder a session's working directory is in.
	Root string `toml:"root"`
	// Aliases are more names for the project.
	Aliases []string `toml:"aliases"`
}

// validateProjects checks the [projects.NAME] tables: an absolute root,
// names and aliases that are short names (no slash, no control
// character), each name used once. Roots are stored cleaned.
func (c *Config) validateProjects() error {
	owner := map[string]string{} // name or alias → the table that has it
	names := make([]string, 0, len(c.Projects))
	for name := range c.Projects {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := c.Projects[name]
		key := "projects." + name
		if err := checkProjectName(name); err != nil {
			return &ConfigError{Key: key, Reason: "the table's name " + err.Error()}
		}
		root := strings.TrimSpace(p.Root)
		if root == "" || !filepath.IsAbs(root) {
			return &ConfigError{Key: key + ".root", Value: strconv.Quote(p.Root), Reason: "want an absolute folder path, like /home/dev/" + name}
		}
		if len(root) > MaxProjectChars || strings.ContainsFunc(root, unicode.IsControl) {
			return &ConfigError{Key: key + ".root", Value: strconv.Quote(p.Root), Reason: fmt.Sprintf("want a path of at most %d bytes without control characters", MaxProjectChars)}
		}
		p.Root = filepath.Clean(root)
		for i, alias := range p.Aliases {
			alias = strings.TrimSpace(alias)
			if err := checkProjectName(alias); err != nil {
				return &ConfigError{Key: key + ".aliases", Value: strconv.Quote(p.Aliases[i]), Reason: "an alias " + err.Error()}
			}
			p.Aliases[i] = alias
		}
		for _, n := range append([]string{name}, p.Aliases...) {
			if other, dup := owner[n]; dup {
				return &ConfigError{Key: key, Value: strconv.Quote(n), Reason: "this name is already used by projects." + other}
			}
			owner[n] = name
		}
		c.Projects[name] = p
	}
	return nil
}

// checkProjectName accepts a short project name: not empty, no slash
// (a path is a root, not a name), no control character.
func checkProjectName(n string) error {
	switch {
	case strings.TrimSpace(n) == "":
		return fmt.Errorf("must not be empty")
	case strings.ContainsRune(n, '/'):
		return fmt.Errorf("must be a short name without '/' (a folder goes in root)")
	case strings.ContainsFunc(n, unicode.IsControl), len(n) > MaxProjectChars:
		return fmt.Errorf("must be at most %d bytes without control characters", MaxProjectChars)
	}
	return nil
}
