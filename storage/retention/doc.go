// Package retention holds the SQL of the retention sweep and the
// retention bound (docs/design/operations.md, "Retention";
// docs/design/evolution.md, "Pruning"): purges of old tombstones with their
// graph links and hints, of old history and finished jobs, what a sweep
// would remove (its backlog and dry-run counts), and the slots over their
// bound with the memories the bound may forget. core/ops runs them.
//
// It is storage's, apart only because only the sweep needs it: it runs on
// storage's Querier and helpers, and storage never imports it. The
// vectors' purges stay in storage beside the vectors' other queries.
package retention
