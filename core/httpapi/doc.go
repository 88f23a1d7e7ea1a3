// Package httpapi is cairn's HTTP edge: every handler, the MCP server, the
// hook endpoints and the auth gate. routes.go is the one route table: each
// route declares its pattern, handler and permission together, and a
// route without a permission cannot be registered; the profiler's routes
// are a table of their own, registered the same way and served only by
// DebugHandler (cairn serve --debug-addr).
// Handlers check their input and call core; domain errors carry a code,
// and StatusOf (status.go) is the one place a code becomes an HTTP status.
package httpapi
