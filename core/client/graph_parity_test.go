package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/core/connectors"
	"github.com/cairnmem/cairn/core/graph"
	"github.com/cairnmem/cairn/core/httpapi"
	"github.com/cairnmem/cairn/storage"
	"github.com/cairnmem/cairn/storage/connstore"
)

// graphBackends returns a Local and an HTTP client over one real store
// whose connectors.roots is roots.
func graphBackends(t *testing.T, roots ...string) (*app.App, *storage.DB, map[string]client.Client) {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.DefaultConfig()
	cfg.Connectors.Roots = roots
	ap := app.New(db, cfg, app.Options{})
	srv := httptest.NewServer(httpapi.NewAPI(ap, "test", "127.0.0.1:0").Handler())
	t.Cleanup(srv.Close)
	return ap, db, map[string]client.Client{
		"local": client.Local(ap, client.LocalOptions{Actor: testActor}),
		"http":  client.HTTP(strings.TrimPrefix(srv.URL, "http://"), client.Options{Actor: testActor}),
	}
}

// Both clients list connectors, sync one (a new file, a changed one, a
// removed one), report a failed sync with its result and error, and
// refuse an unknown id with the core error.
func TestConnectorsBothBackends(t *testing.T) {
	for _, name := range []string{"local", "http"} {
		t.Run(name, func(t *testing.T) {
			notes := t.TempDir()
			write := func(file, text string) {
				if err := os.WriteFile(filepath.Join(notes, file), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("a.md", "The on-call rota hands over every Monday.")
			write("b.md", "Backups run nightly at 02:00.")
			ap, _, backends := graphBackends(t, notes)
			b := backends[name]
			ctx := context.Background()
			c, err := ap.Connectors.Create(ctx, connectors.CreateInput{Provider: connectors.ProviderFilesystem, Root: notes})
			if err != nil {
				t.Fatal(err)
			}
			list, err := b.Connectors(ctx)
			if err != nil || len(list) != 1 || list[0].ID != c.ID || list[0].Status != connstore.ConnectorIdle || list[0].LastSyncAt != "" {
				t.Fatalf("connectors: %+v %v", list, err)
			}
			res, err := b.SyncConnector(ctx, c.ID)
			if err != nil || res.Added != 2 || res.Changed != 0 || res.Removed != 0 {
				t.Fatalf("first sync: %+v %v", res, err)
			}
			write("a.md", "The on-call rota hands over every Tuesday now.")
			if err := os.Remove(filepath.Join(notes, "b.md")); err != nil {
				t.Fatal(err)
			}
			res, err = b.SyncConnector(ctx, c.ID)
			if err != nil || res.Added != 0 || res.Changed != 1 || res.Removed != 1 {
				t.Fatalf("second sync: %+v %v", res, err)
			}
			list, _ = b.Connectors(ctx)
			if list[0].Files != 1 || list[0].LastSyncAt == "" {
				t.Fatalf("after the syncs: %+v", list[0])
			}
			if err := os.RemoveAll(notes); err != nil {
				t.Fatal(err)
			}
			if res, err = b.SyncConnector(ctx, c.ID); err == nil || res == nil {
				t.Fatalf("sync of a folder that is gone: %+v %v", res, err)
			}
			list, _ = b.Connectors(ctx)
			if list[0].Status != connstore.ConnectorError || list[0].LastError == "" {
				t.Fatalf("the failure is not the connector's state: %+v", list[0])
			}
			if _, err := b.SyncConnector(ctx, "no-such-connector"); !errors.Is(err, &core.Error{Code: core.CodeNotFound}) {
				t.Fatalf("unknown connector: %v", err)
			}
		})
	}
}

// Both clients list a memory's entities and open one: relations with
// their direction, neighbours, and the memories that mention it.
func TestEntitiesBothBackends(t *testing.T) {
	ap, db, backends := graphBackends(t)
	ctx := context.Background()
	svc := ap.Service
	agent := core.Actor{Name: "agent", Type: core.ActorAgent}
	r1, err := svc.Remember(ctx, core.RememberInput{Content: "We provision the staging cluster with Terraform"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := svc.Remember(ctx, core.RememberInput{Content: "Terraform state lives in the ops bucket"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := ap.Graph.MemoryEntities(ctx, r1.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	tf := ""
	for _, e := range ents {
		if e.CanonicalName == "terraform" {
			tf = e.ID
		}
	}
	if tf == "" {
		t.Fatalf("the linker found no terraform: %+v", ents)
	}
	if err := db.WriteTx(ctx, func(tx storage.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
			VALUES ('e-aws', 'AWS', 'aws', 'service', 0, 't', 't'), ('e-ops', 'ops team', 'ops team', 'team', 0, 't', 't')`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, mentions, confidence, created_at, updated_at)
			VALUES ('r1', ?1, 'e-aws', 'deploys_to', 3, 0.9, 't', 't'), ('r2', 'e-ops', ?1, 'owns', 1, 0.7, 't', 't')`, tf)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			got, err := b.MemoryEntities(ctx, r1.Memory.ID)
			if err != nil || len(got) != len(ents) || got[0].ID != ents[0].ID {
				t.Fatalf("memory entities: %+v %v (want %+v)", got, err, ents)
			}
			d, err := b.GraphEntity(ctx, tf, graph.Query{Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if d.Entity.Name != "Terraform" || len(d.Relations) != 2 || len(d.Neighbours) != 2 || len(d.Memories) != 2 {
				t.Fatalf("entity: %+v", d)
			}
			if r := d.Relations[0]; r.Direction != "out" || r.RelationType != "deploys_to" || r.Other.Name != "AWS" {
				t.Fatalf("first relation: %+v", r)
			}
			if r := d.Relations[1]; r.Direction != "in" || r.Other.Name != "ops team" {
				t.Fatalf("second relation: %+v", r)
			}
			if d.Memories[0].ID != r2.Memory.ID || d.Memories[1].Content != "We provision the staging cluster with Terraform" {
				t.Fatalf("memories: %+v", d.Memories)
			}
			if _, err := b.GraphEntity(ctx, "no-such-entity", graph.Query{Limit: 50}); !errors.Is(err, &core.Error{Code: core.CodeNotFound}) {
				t.Fatalf("unknown entity: %v", err)
			}
		})
	}
}
