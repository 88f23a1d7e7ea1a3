// Package opencode is OpenCode as cairn serves it. OpenCode has no
// command hooks, only JavaScript plugins: `cairn install opencode` writes
// a plugin (plugin.js) into OpenCode's config folder that runs cairn's
// hook shim, `cairn hook --harness opencode EVENT`, with the event as JSON
// on stdin, and adds cairn's MCP server to opencode.json. The plugin asks
// for the session-start context once per session and adds it to the
// system prompt of the session's requests, adds the prompt hook's
// memories to the user's message, and, OpenCode having no session end
// event and no transcript file, sends the conversation so far as the
// session end each time the session goes idle (the end of a turn).
//
// It may import core/harness and core/harness/jsonedit; only main and
// tests import it.
package opencode
