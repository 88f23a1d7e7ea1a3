// Package hooks owns the agent hook flows: what a harness (Claude Code,
// Codex, …) calls at session start, at each prompt, at session end, to
// remember and recall, and around a compaction. It decides what is
// injected (the project's memories and the user's and agent's scopes,
// within their budgets; at a prompt, only what is about the prompt: the
// relevance gate), ranks the candidates (aspect feedback, the learned
// ranker's order with the features it learns from), and resolves the
// projects a request names (project identity: Resolver, ResolveProject,
// the adoption of short names and MigrateProjects at open).
//
// The files: hooks.go (Hooks, its dependencies, Request),
// session_start.go, prompt.go, session_end.go (and a live session's
// transcript, learned from as it goes), remember.go (remember,
// recall, pre-compaction, compaction complete), scopes.go (the user and
// agent scopes), inject_gate.go (the prompt gate), features.go (the
// learned ranker's features and pick), identity.go (project identity).
//
// Hooks are built once per store by the composition root (core/app) from
// the memory lifecycle behind a small interface (Memories: recall,
// remember, access tracking, redaction, the kill switch and a project's
// remap, all on core.Service), the sessions (core/sessions), the ranker
// (core/ranker), the store for read-only queries, the configuration, the
// clock, a logger and the embedding model's name. It may import core,
// core/sessions, core/ranker, core/project, core/config, core/text,
// core/extract (what a rule or decision names, for the gate),
// core/keyword (the index's stemming) and storage; core and the packages
// it imports must never import hooks. The
// HTTP API, the hook spool and the hook shim of package main call it.
package hooks
