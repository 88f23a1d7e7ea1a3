// Package text holds cairn's text handling that needs no store: content
// normalization and hashing (matched to Signet's), prefixes (critical:,
// [tags]:), chunking of memories and documents, the FTS query sanitizer
// with its stopwords and verb forms, transcript normalization, the markers
// around injected blocks, secret redaction rules (Redact, and RedactURL
// for URLs), and the one sanitizer for what reaches a terminal or an
// agent (Display, DisplayLine, CleanLine) with the check that refuses
// control and invisible characters in identifiers (CheckIdentifier).
package text
