// Package claudecode is Claude Code as cairn serves it: the hook events
// and the answer format of the hook shim (Harness), and `cairn install
// claude-code` / `cairn uninstall claude-code`: cairn's hooks in
// ~/.claude/settings.json and its MCP server in ~/.claude.json, added and
// found again exactly, with the user's own entries, key order and
// formatting left alone.
//
// It may import core/harness and core/harness/jsonedit; only main imports
// it.
package claudecode
