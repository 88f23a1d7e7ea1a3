// Package harness is what every agent harness's package shares: the shape
// of a harness as the hook shim serves it (Harness, Event: where each
// event goes, how long the agent waits, how the answer is printed), the
// parsing of a hook's stdin, the answer format Claude Code, Codex and
// Gemini CLI share, the editing of hook files and MCP entries the
// installers share (hookfile.go), and the binary check of an install
// (CheckBinary).
//
// What is one harness's own lives in a package per harness:
// core/harness/claudecode has Claude Code's events, output and settings
// editor, and so on for codex, gemini, opencode and cursor;
// core/harness/jsonedit is the order-preserving JSON editor the
// installers share; core/harness/shim runs the hook shim and the spool.
//
// harness imports only core/harness/jsonedit: a harness's package, its
// tests and fuzzers link no store.
package harness
