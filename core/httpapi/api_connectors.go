package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/cairnmem/cairn/core/connectors"
)

// Connectors (docs/design/pipeline.md, "Connectors"): the registry, a
// sync on request, and removal.

func (a *API) listConnectors(w http.ResponseWriter, r *http.Request) {
	list, err := a.app.Connectors.List(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"connectors": list, "count": len(list)})
}

// createConnector serves POST /api/connectors {provider, display_name,
// root} (root also as config.root): a filesystem connector over a folder
// inside connectors.roots.
func (a *API) createConnector(w http.ResponseWriter, r *http.Request) {
	b, e := readBody(w, r, a.svc.Config().Server.MaxBodyBytes)
	if e != nil {
		writeError(w, e)
		return
	}
	var in connectors.CreateInput
	for _, f := range []struct {
		dst   *string
		names []string
	}{{&in.Provider, []string{"provider"}}, {&in.DisplayName, []string{"display_name", "displayName", "name"}}, {&in.Root, []string{"root", "path"}}} {
		v, _, e := b.str(f.names...)
		if e != nil {
			writeError(w, e)
			return
		}
		*f.dst = v
	}
	if raw, _ := b.field("config"); in.Root == "" && len(raw) > 0 {
		var cfg struct {
			Root string `json:"root"`
			Path string `json:"path"`
		}
		if json.Unmarshal(raw, &cfg) == nil {
			in.Root = cfg.Root
			if in.Root == "" {
				in.Root = cfg.Path
			}
		}
	}
	c, err := a.app.Connectors.Create(r.Context(), in)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

func (a *API) getConnector(w http.ResponseWriter, r *http.Request) {
	c, err := a.app.Connectors.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// syncConnector serves POST /api/connectors/{id}/sync: it syncs now and
// answers what the sync did (the documents it queued are ingested by the
// document worker after).
func (a *API) syncConnector(w http.ResponseWriter, r *http.Request) {
	res, err := a.app.Connectors.Sync(r.Context(), r.PathValue("id"))
	if err != nil && res == nil {
		a.fail(w, r, err)
		return
	}
	out := map[string]any{"result": res}
	if err != nil {
		out["error"] = err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteConnector serves DELETE /api/connectors/{id}?forget=true: with
// forget, the documents it ingested are deleted too.
func (a *API) deleteConnector(w http.ResponseWriter, r *http.Request) {
	forget := r.URL.Query().Get("forget") == "true"
	n, err := a.app.Connectors.Delete(r.Context(), r.PathValue("id"), forget, actorOf(r, nil))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"deleted": true, "memories_removed": n})
}
