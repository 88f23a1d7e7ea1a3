// Package fetch fetches a document's URL for ingest, bounded in size,
// redirects and time, with the SSRF guard at dial time (loopback, private,
// link-local and other internal addresses are refused), and reduces HTML to
// text.
package fetch
