package client_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/storage"
)

// The connector routes through the real API: list, one, a sync that adds
// a file, a sync whose folder went away (the result and the error both
// come back), and an unknown id as a *core.Error.
func TestConnectorRoutes(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "oncall.md"), []byte("The on-call rota hands over every Monday."), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newAPI(t, func(c *config.Config) { c.Connectors.Roots = []string{notes} })
	ctx := context.Background()
	created, err := a.app.Connectors.Create(ctx, connectors.CreateInput{Provider: connectors.ProviderFilesystem, DisplayName: "notes", Root: notes})
	if err != nil {
		t.Fatal(err)
	}
	c := client.HTTP(a.addr, client.Options{Actor: tester, Timeout: 10 * time.Second})

	list, err := c.Connectors(ctx)
	if err != nil || len(list) != 1 || list[0].ID != created.ID || list[0].DisplayName != "notes" || list[0].Status != "idle" {
		t.Fatalf("list: %+v %v", list, err)
	}
	res, err := c.SyncConnector(ctx, created.ID)
	if err != nil || res == nil || res.Added != 1 || res.ConnectorID != created.ID {
		t.Fatalf("sync: %+v %v", res, err)
	}
	one, err := c.Connector(ctx, created.ID)
	if err != nil || one.Files != 1 || one.LastSyncAt == "" || one.LastError != "" {
		t.Fatalf("after the sync: %+v %v", one, err)
	}

	if err := os.RemoveAll(notes); err != nil {
		t.Fatal(err)
	}
	res, err = c.SyncConnector(ctx, created.ID)
	if err == nil || res == nil {
		t.Fatalf("a sync of a folder that is gone: %+v %v", res, err)
	}
	if one, _ := c.Connector(ctx, created.ID); one.Status != "error" || one.LastError == "" {
		t.Fatalf("the failed sync is not recorded: %+v", one)
	}

	if _, err := c.SyncConnector(ctx, "no-such-connector"); !errors.Is(err, &core.Error{Code: core.CodeNotFound}) || client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("unknown connector: %v", err)
	}
}

// The graph routes through the real API: a memory's entities, one
// entity's relations, neighbours and memories, and an unknown entity.
func TestGraphRoutes(t *testing.T) {
	a := newAPI(t, nil)
	c := client.HTTP(a.addr, client.Options{Actor: tester, Timeout: 10 * time.Second})
	ctx := context.Background()
	m1, err := c.Remember(ctx, core.RememberInput{Content: "We provision the staging cluster with Terraform", Project: "atlas"})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := c.Remember(ctx, core.RememberInput{Content: "Terraform state lives in the ops bucket", Project: "webshop"})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := c.MemoryEntities(ctx, m1.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tf graph.Entity
	for _, e := range ents {
		if e.CanonicalName == "terraform" {
			tf = e
		}
	}
	if tf.ID == "" || tf.Mentions != 2 {
		t.Fatalf("the memory's entities: %+v", ents)
	}
	if err := a.db.WriteTx(ctx, func(tx storage.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
			VALUES ('e-aws', 'AWS', 'aws', 'service', 0, 't', 't')`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, mentions, confidence, created_at, updated_at)
			VALUES ('r1', ?, 'e-aws', 'deploys_to', 3, 0.9, 't', 't')`, tf.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d, err := c.GraphEntity(ctx, tf.ID, graph.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Entity.ID != tf.ID || len(d.Relations) != 1 || d.Relations[0].Direction != "out" || d.Relations[0].Other.Name != "AWS" ||
		len(d.Neighbours) != 1 || len(d.Memories) != 2 || d.Memories[0].ID != m2.ID || d.Memories[1].ID != m1.ID {
		t.Fatalf("detail: %+v", d)
	}
	d, err = c.GraphEntity(ctx, tf.ID, graph.Query{Project: "atlas", RelationType: "owns", Limit: 5})
	if err != nil || len(d.Memories) != 1 || d.Memories[0].ID != m1.ID || len(d.Relations) != 0 {
		t.Fatalf("narrowed: %+v %v", d, err)
	}
	if _, err := c.GraphEntity(ctx, "no-such-entity", graph.Query{}); client.StatusOf(err) != http.StatusNotFound {
		t.Fatalf("unknown entity: %v", err)
	}
}
