// Package config is cairn's configuration: the sections and keys of the
// TOML file, every default declared once as a named constant
// (defaults.go), validation from the struct tags, environment overrides
// (CAIRN_<SECTION>_<KEY>) and the XDG paths. It imports nothing of cairn.
package config
