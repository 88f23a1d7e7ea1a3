// Package wire holds the types cairn's clients see: what the HTTP API
// answers and what core/client returns, in process or over HTTP, to the
// CLI, the terminal UI, the hook shim and the MCP proxy. A view here is
// the API's JSON, field for field.
//
// Two kinds of type live here:
//
//   - Views the domain returns as they are: the diagnostics report, the
//     repair and maintenance types (core/ops), the connector views
//     (core/connectors), latency summaries (core/analytics) and history
//     entries (core). Those packages name them with type aliases, so the
//     API encodes the very struct a client decodes.
//   - Copies of storage rows a client reads (Job, Proposal) and of views
//     with private state (ErrorEvent). The API encodes the row; the local
//     client converts it (wire.Job(*row): the conversion only compiles
//     while the fields match) and core/httpapi's wire tests pin the JSON.
//
// wire is a leaf: it imports nothing of cairn, and anything may import it.
// It holds no behaviour beyond small pure helpers on its own types.
package wire
