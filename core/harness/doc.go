// Package harness connects agent harnesses (Claude Code today; Codex,
// Gemini CLI, OpenCode and Cursor next) to cairn on the user's side:
//
//   - the hook shim (Run): read the event the harness sends on stdin,
//     resolve the agent's project and transcript here (the server never
//     opens a path a request names), post it to the running cairn's
//     /api/hooks within the harness's timeout, print what cairn injects in
//     the harness's format; with no cairn running, answer from the store
//     opened read-only, keep the writes in the spool and start a server in
//     the background;
//   - the spool (WriteSpool, IngestSpool): hook writes made while cairn
//     was down, a file queue the server ingests at start and while it
//     runs;
//   - the binary check of an install (CheckBinary).
//
// What is one harness's own lives in a package per harness:
// core/harness/claudecode has Claude Code's events, output and settings
// editor; core/harness/jsonedit is the order-preserving JSON editor the
// installers share.
//
// harness may import core (the hook request, a read-only Service),
// core/client, core/httpapi (the hook request decoder and the code→status
// map the API uses, so a spooled write is refused exactly as the API
// would), core/config, core/project, core/text and storage (the lock file,
// the read-only store). Only main and the per-harness packages import it;
// core, core/httpapi and the workers never do.
package harness
