package httpapi_test

import (
	"testing"

	"github.com/cairnmem/cairn/core/internal/apitest"
)

// GET /api/graph/entities/{id}: one entity with its relations (both
// directions, filtered by type), its neighbours and the memories that
// mention it; ?memory= lists a memory's entities.
func TestGraphEntityDetail(t *testing.T) {
	e := apitest.NewEnv(t)
	m1 := e.MustID(t, "We provision the staging cluster with Terraform", "project", "atlas")
	m2 := e.MustID(t, "Terraform state lives in the ops bucket", "project", "webshop")
	e.MustID(t, "lunch is at noon")

	list := e.Get(t, "/api/graph/entities?q=terraform").Want(t, 200)
	ents, _ := list.JSON["entities"].([]any)
	if len(ents) != 1 {
		t.Fatalf("entities named terraform: %s", list)
	}
	tf := ents[0].(map[string]any)["id"].(string)

	e.Exec(t, `INSERT INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at)
		VALUES ('e-aws', 'AWS', 'aws', 'service', 0, 't', 't'), ('e-ops', 'ops team', 'ops team', 'team', 0, 't', 't')`)
	e.Exec(t, `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, mentions, confidence, created_at, updated_at)
		VALUES ('r1', ?, 'e-aws', 'deploys_to', 3, 0.9, 't', 't'), ('r2', 'e-ops', ?, 'owns', 1, 0.7, 't', 't')`, tf, tf)

	d := e.Get(t, "/api/graph/entities/"+tf).Want(t, 200)
	rels, _ := d.JSON["relations"].([]any)
	neigh, _ := d.JSON["neighbours"].([]any)
	mems, _ := d.JSON["memories"].([]any)
	if len(rels) != 2 || len(neigh) != 2 || len(mems) != 2 {
		t.Fatalf("detail: %s", d)
	}
	first := rels[0].(map[string]any)
	if first["relation_type"] != "deploys_to" || first["direction"] != "out" || first["other"].(map[string]any)["name"] != "AWS" {
		t.Fatalf("most observed relation first, seen from the entity: %v", first)
	}
	if second := rels[1].(map[string]any); second["direction"] != "in" {
		t.Fatalf("incoming relation: %v", second)
	}
	if mems[0].(map[string]any)["id"] != m2 || mems[1].(map[string]any)["id"] != m1 {
		t.Fatalf("memories newest first: %v", mems)
	}

	owns := e.Get(t, "/api/graph/entities/"+tf+"?relation=owns&project=atlas").Want(t, 200)
	if rels, _ := owns.JSON["relations"].([]any); len(rels) != 1 {
		t.Fatalf("relation filter: %s", owns)
	}
	if mems, _ := owns.JSON["memories"].([]any); len(mems) != 1 || mems[0].(map[string]any)["id"] != m1 {
		t.Fatalf("project filter: %s", owns)
	}

	of := e.Get(t, "/api/graph/entities?memory="+m1).Want(t, 200)
	found := false
	for _, x := range of.JSON["entities"].([]any) {
		found = found || x.(map[string]any)["id"] == tf
	}
	if !found {
		t.Fatalf("a memory's entities: %s", of)
	}
	e.Get(t, "/api/graph/entities/no-such-entity").WantErr(t, 404, "not_found")
	e.Get(t, "/api/graph/entities/"+tf+"?limit=0").WantErr(t, 400, "invalid_request")
}
