// Package httpapi is cairn's HTTP edge: every handler, the MCP server, the
// hook endpoints, the auth gate and the hook spool. routes.go is the one
// route table: each route declares its pattern, handler and permission
// together, and a route without a permission cannot be registered.
// Handlers check their input and call core; domain errors carry a code,
// and StatusOf (status.go) is the one place a code becomes an HTTP status.
package httpapi
