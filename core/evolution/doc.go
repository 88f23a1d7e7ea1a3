// Package evolution is how memories evolve once written: keyed facts and
// scopes, reinforcement, supersession (by key, by attribute, across
// sibling attributes, by a pipeline decision, by the model's structural
// classification), the Evolution view of a memory, evidence (confidence ×
// reinforcement × staleness), and what export lines carry of it (Carried).
//
// It sits below core. Core's write path calls it inside its own write
// transactions through a Tx, a value core builds for one transaction and
// one actor (core.Service.EvolutionTx): the transaction, its time, and the
// write path's own soft delete, recover and history writes. Evolution
// never writes a memory row's lifecycle (deletion, recovery, history) any
// other way; what it writes itself are its own columns and tables (key,
// scope, successor, reinforcement, attributes and aspects, review
// proposals), through storage.
//
//	tx.go              Tx (the seam), FieldError
//	evolve.go          keys, scopes, reinforcement, keyed supersession, the Evolution view, evidence
//	supersede.go       supersession by a decision (Supersede)
//	attributes.go      attributes the linker reads, written and superseding in the write transaction
//	attributes_edit.go an edit re-reads its attributes; supersessions without a reason are undone
//	siblings.go        retroactive supersession across sibling attributes
//	classify.go        the model's structural classification and its sibling checks, applied
//	carried.go         what export and import carry of evolution
//
// It may import storage, core/config, core/entities, core/extract and
// core/text. It must never import core (core imports it), nor anything
// built on core.
package evolution
