package main

import (
	"context"
	"testing"

	"github.com/cairnmem/cairn/core/client"
)

// TestImportSeesItsOwnStore: connect wraps the store this process opens
// in an appClient, and cairn import must still reach it in process, to
// hand the whole file to the store (one bulk load, the next batch prepared
// while one is written) instead of 2,000-line chunks as over HTTP.
func TestImportSeesItsOwnStore(t *testing.T) {
	t.Setenv("CAIRN_EMBEDDING_PROVIDER", "none")
	be, err := connect(context.Background(), &commonFlags{home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ac, ok := be.(appClient)
	if !ok {
		t.Fatalf("connect returned %T", be)
	}
	if _, ok := ac.Client.(*client.InProcess); !ok || be.Addr() != "" {
		t.Fatalf("connect wraps %T: the import would go through the chunked path", ac.Client)
	}
}
