// Package sessions owns the agent sessions cairn records: the sessions
// and their transcripts (listing, one session with its transcript, the
// transcript stored at session end, at a compaction, periodically in a
// long session or with a remember, with what of it could not be read, and
// its learning queued), the injections of each prompt (and whether each
// was an answer: the prompt gate's repeat rule), and session continuity
// (docs/design/pipeline.md, "Session continuity"): each session's
// activity between hooks, checkpoints, the recovery digest after a
// compaction or a resume, what a session was offered and used of its
// memories, and its score at the end, which feeds aspect feedback
// (core/ranker).
//
// A Sessions is built once per store by the composition root (core/app)
// from the store, the configuration, the clock, a logger, the aspect
// feedback and a two-method seam to the memory lifecycle (Memories:
// redaction and the kill switch). It may import core (its errors, ids and
// job types), core/ranker, core/config, core/text, core/extract (the
// digest's decisions and prompts of substance) and storage; core and
// the packages below it must never import it. core/hooks drives it; the
// HTTP API and the terminal UI read sessions through it.
package sessions
