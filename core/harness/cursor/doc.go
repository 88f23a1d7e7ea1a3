// Package cursor is Cursor as cairn serves it, from Cursor's published
// documents only (its CLI cannot be installed or pointed at a local model
// here, so nothing is checked against the real client): the hook events
// and answer format of the hook shim (Harness: sessionStart and
// beforeSubmitPrompt answer {"additional_context"}, the session key is
// conversation_id and the project the first workspace root), and `cairn
// install cursor` / `cairn uninstall cursor`: cairn's hooks in
// ~/.cursor/hooks.json (Cursor's flat shape, version 1) and its MCP
// server in ~/.cursor/mcp.json, added and found again exactly.
//
// It may import core/harness and core/harness/jsonedit; only main and
// tests import it.
package cursor
