// Package pipeline is the extraction pipeline on a core.Service: an
// extract or session job becomes facts (through an extract.LLM), each fact
// a decision (add, update, delete, none) recorded as a proposal, applied or
// held for review in shadow mode, and the extraction's entities and
// relations are written into the graph. One Pipeline serves a Service;
// core/app builds it.
package pipeline
