// Package codex is Codex CLI as cairn serves it: the hook events and
// answer format of the hook shim (Harness), and `cairn install codex` /
// `cairn uninstall codex`: cairn's hooks in ~/.codex/hooks.json, their
// trust entries (HookTrust: Codex runs a user hook only when config.toml
// holds the hash of its handler) and cairn's MCP server in
// ~/.codex/config.toml, with CAIRN_HOME in its environment (Codex does
// not pass its own to MCP servers). config.toml is edited table by table
// (toml.go): the user's comments and formatting stay, and the result is
// decoded before it is written.
//
// It may import core/harness and core/harness/jsonedit; only main and
// tests import it.
package codex
