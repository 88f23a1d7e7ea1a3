// Package entities is the inline entity linker (docs/design/graph.md,
// "Inline linker"; docs/design/evolution.md, "Decisions and
// constraints"): a pure, deterministic pass over
// a memory's text that names the entities it mentions (people, projects,
// tools, libraries, services, files and paths, code identifiers,
// versions), and the decision-language battery. It needs no store, no
// network and no model, so the write path runs it inside the write
// transaction; the async extraction pipeline uses the same canonical names
// and the same filters (Generic, SpeakerLabels), so it refines what the
// linker made instead of adding a second, noisier copy.
//
// What is not an entity: speaker labels ("Caroline:" opening a turn),
// names used as a vocative ("Thanks, Mel!": the person addressed, who is
// the other speaker, not what the turn is about), pronouns, role words
// (User, Assistant, Sentence), days and months, stopwords and common
// words, in particular a capitalised common word that only opens a
// sentence.
package entities
