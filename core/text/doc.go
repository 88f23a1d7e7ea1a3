// Package text holds cairn's text handling that needs no store: content
// normalization and hashing (matched to Signet's), prefixes (critical:,
// [tags]:), chunking of memories and documents, the FTS query sanitizer
// with its stopwords and verb forms, transcript normalization, the markers
// around injected blocks, and secret redaction rules.
package text
