// Package extract is the model side of the pipeline: the LLM interface,
// the extraction, decision and contradiction prompts, the parsers of their
// answers (fuzzed: a model's answer is outside input), and the heuristic
// extractor that runs without a model.
package extract
