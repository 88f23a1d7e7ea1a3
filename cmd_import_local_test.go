package main

import (
	"context"
	"testing"
)

// TestImportSeesItsOwnStore: connect wraps the store this process opens
// in an appBackend, and cairn import must still find it there, to hand
// the whole file to the store (one bulk load, the next batch prepared
// while one is written) instead of 2,000-line chunks as over HTTP.
func TestImportSeesItsOwnStore(t *testing.T) {
	t.Setenv("CAIRN_EMBEDDING_PROVIDER", "none")
	be, err := connect(context.Background(), &commonFlags{home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	lb, ok := localOf(be)
	if !ok || lb.st == nil {
		t.Fatalf("localOf(%T) = %v: the import would go through the chunked path", be, ok)
	}
}
