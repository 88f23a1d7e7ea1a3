// Package transfer moves memories in and out of a store: the JSONL export
// (every memory with its evolution), the JSONL import through core's write
// path (checked line by line before anything is written, then written in
// large batches), and the import of a Signet store (its memories, their
// history and, from the same model, their vectors).
//
//	transfer.go   Transfer, Export, Import, ImportProgress, the lines and their guardrails
//	evolution.go  what the lines carry of evolution: checks against the file and the store, repointing
//	signet.go     ImportSignet
//
// Transfer writes only through core's transaction-scoped write path
// (Service.InsertBatch, Service.EvolutionTx, Service.CopyHistory); it
// opens the write transactions that hold them.
//
// It may import core, core/evolution, core/config, core/text, core/vector
// and storage (storage/signet for the Signet reader). Nothing in core
// imports it; the edges (core/httpapi, the CLI, the TUI's tests) get it
// from core/app.
package transfer
