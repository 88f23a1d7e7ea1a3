// Package gemini is Gemini CLI as cairn serves it: the hook events and
// answer format of the hook shim (Harness: SessionStart, BeforeAgent for
// each prompt with the <hook_context> blocks Gemini CLI adds taken out,
// PreCompress for a /compress and for an automatic compression the chat
// file's token count says is coming (not before every model call),
// SessionEnd with Gemini CLI's chat
// file as the transcript), and `cairn install gemini` / `cairn uninstall
// gemini`: cairn's hooks and its trusted MCP server in
// ~/.gemini/settings.json, added and found again exactly, with the
// user's own entries, key order and formatting left alone.
//
// It may import core/harness and core/harness/jsonedit; only main and
// tests import it.
package gemini
