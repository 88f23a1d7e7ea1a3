// Package shim is `cairn hook`, the user's side of a hook event:
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
//   - DecodeInput: what cairn makes of a harness's stdin, for the tests and
//     fuzzers of every harness's input.
//
// shim may import core (the hook request, a read-only Service), core/app,
// core/client, core/httpapi (the hook request decoder and the code→status
// map the API uses, so a spooled write is refused exactly as the API
// would), core/config, core/hooks, core/project, core/text, core/harness
// and storage (the lock file, the read-only store). Only main and
// core/bench import it; core, core/httpapi and the workers never do.
package shim
