// Package client is how everything outside the process that owns the
// store reaches cairn, and how the commands inside it reach the store:
// one interface, Client, for "the running cairn or the store itself", used
// by the CLI, the terminal UI, the hook shim and the MCP proxy.
//
// Two implementations answer with the same types (core's memory views and
// core/wire's): Local, in process over the *app.App this process built,
// and HTTP, over the API of the cairn that holds the database. HTTP builds
// every request in one place (token, actor headers, deadlines), bounds
// what it reads back and turns the API's error bodies into *core.Error, so
// callers handle both alike.
//
// client may import core, core/app (Local drives the subsystems it built),
// core/wire, and the domain packages only to call them (core/pipeline's
// filter, core/analytics's). It never imports storage: the rows it returns
// are core/wire's. core/httpapi, the workers and the domain must never
// import client; the CLI, the TUI and core/harness do.
package client
