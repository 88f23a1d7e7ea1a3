// Package mcpstdio is the MCP server `cairn mcp` runs on stdio for an
// agent: it lists cairn's tools at once from the definitions this binary
// holds (tools.json, the store's MCP server's list written out), and
// forwards each call, with the calling client's name and the agent's
// project, to whichever answers: the store's own MCP server in the same
// process (Local) or a running cairn's /mcp (Remote, reconnected when the
// instance restarts). A call that comes before either is known waits
// (Backend).
//
// mcpstdio imports core/client (the HTTP client) and core/httpapi (the
// server's name and instructions); only main imports it.
package mcpstdio
