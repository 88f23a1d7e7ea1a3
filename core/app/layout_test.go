package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The layout of the module, kept from regrowing: which packages may
// import which (the README's "How it is built" draws the same arrows), how
// large core may grow, and that the README names every package. It reads
// the import graph from `go list`, so it sees what the compiler sees.

const module = "github.com/cairnmem/cairn"

// Budgets (issue 27): core holds the Service, the memory lifecycle and
// recall, not every feature; no package is allowed to become the next
// place everything lands.
const (
	coreLineBudget     = 5500
	serviceMethodLimit = 80
	packageLineBudget  = 5500
)

// Layers, lowest first. A package may import packages of lower layers, and
// of its own layer where sameLayer says so. Packages not listed are edges
// (layer edge) or main.
const (
	layerLeaf       = iota // storage, pure libraries, wire types: no Service
	layerBelowCore         // capabilities core calls: never import core
	layerCore              // core: the Service, the write path, recall
	layerCapability        // capabilities built on the Service
	layerRoot              // core/app, the composition root
	layerEdge              // HTTP, clients, harness shims, workers, the TUI, tools
	layerMain
)

var layerNames = []string{"leaf", "below core", "core", "capability", "composition root", "edge", "main"}

func layerOf(pkg string) int {
	switch {
	case pkg == "":
		return layerMain
	case pkg == "storage", strings.HasPrefix(pkg, "storage/"),
		pkg == "themes", pkg == "tui/keys", pkg == "tui/diff", pkg == "tui/styles",
		pkg == "core/harness/jsonedit", strings.HasPrefix(pkg, "core/internal/") && !strings.HasSuffix(pkg, "test"),
		pkg == "workers/internal/provider", strings.HasPrefix(pkg, "workers/embedding/uselite"):
		return layerLeaf
	case slices.Contains([]string{"core/config", "core/text", "core/keyword", "core/vector", "core/entities",
		"core/extract", "core/fetch", "core/analytics", "core/auth", "core/project", "core/wire"}, pkg):
		return layerLeaf
	case slices.Contains([]string{"core/evolution", "core/vectors", "core/jobs", "core/ranker"}, pkg):
		return layerBelowCore
	case pkg == "core":
		return layerCore
	case slices.Contains([]string{"core/hooks", "core/sessions", "core/transfer", "core/ops", "core/pipeline",
		"core/documents", "core/connectors", "core/graph"}, pkg):
		return layerCapability
	case pkg == "core/app":
		return layerRoot
	}
	return layerEdge
}

// sameLayer says whether a package may import another of its own layer:
// leaves may build on leaves, capabilities on capabilities (connectors
// ingest through documents, hooks record through sessions) and edges on
// edges (the harness shim posts through the client); the packages below
// core stay independent of each other.
func sameLayer(layer int) bool {
	return layer != layerBelowCore && layer != layerCore && layer != layerRoot
}

// forbidden are imports the layers alone would allow but the design does
// not: the TUI and the client see wire types, never storage rows; the
// HTTP edge knows nothing of its clients; model providers are not edges.
var forbidden = []struct {
	from, to *regexp.Regexp
	why      string
}{
	{regexp.MustCompile(`^tui(/[^i].*)?$`), regexp.MustCompile(`^storage(/.*)?$`), "the TUI renders wire types, not storage rows"},
	{regexp.MustCompile(`^tui(/.*)?$`), regexp.MustCompile(`^(core/app|core/httpapi|workers(/.*)?)$`), "the TUI talks to cairn through core/client"},
	{regexp.MustCompile(`^core/client$`), regexp.MustCompile(`^(storage(/.*)?|core/httpapi)$`), "the client speaks wire types over HTTP or in process"},
	{regexp.MustCompile(`^core/httpapi$`), regexp.MustCompile(`^(core/client|core/harness(/.*)?|tui(/.*)?|workers(/.*)?)$`), "the HTTP edge serves; it knows nothing of its clients"},
	{regexp.MustCompile(`^workers/(llm|embedding|rerank)(/.*)?$`), regexp.MustCompile(`^(core/app|core/httpapi|core/client|tui(/.*)?)$`), "model providers implement core's interfaces and nothing more"},
}

// engines are the storage engines: only storage (and storage/engine, its
// engine-neutral DB) imports them, and the
// rest of cairn uses storage's names (storage/engine.go), so that another
// engine slots in behind storage without touching the capabilities.
var engines = []string{"storage/sqlite", "storage/postgres"}

type goPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// listPackages is `go list` of the module, run once for the tests that
// read it.
func listPackages(t *testing.T) (root string, pkgs []goPackage) {
	t.Helper()
	l := goList()
	if l.skip != "" {
		t.Skip(l.skip)
	}
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.root, l.pkgs
}

type listed struct {
	root string
	pkgs []goPackage
	skip string
	err  error
}

var goList = sync.OnceValue(func() (l listed) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		l.skip = fmt.Sprintf("go env: %v", err)
		return l
	}
	l.root = filepath.Dir(strings.TrimSpace(string(out)))
	cmd := exec.Command("go", "list", "-tags", "integration", "-json", "./...")
	cmd.Dir = l.root
	if out, err = cmd.Output(); err != nil {
		l.err = fmt.Errorf("go list: %v", err)
		return l
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			l.err = err
			return l
		}
		l.pkgs = append(l.pkgs, p)
	}
	return l
})

// rel is a package's path inside the module ("" for main).
func rel(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	return r, ok
}

func TestImportsFollowTheLayers(t *testing.T) {
	_, pkgs := listPackages(t)
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		if strings.Contains(from, "/internal/") && strings.HasSuffix(from, "test") {
			continue // test helpers build whole stores and servers
		}
		lf := layerOf(from)
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			lt := layerOf(to)
			if lt > lf || (lt == lf && !sameLayer(lf)) {
				t.Errorf("%s (%s) imports %s (%s): imports point down, %s → %s is up or across",
					show(from), layerNames[lf], to, layerNames[lt], layerNames[lf], layerNames[lt])
			}
			for _, f := range forbidden {
				if f.from.MatchString(from) && f.to.MatchString(to) {
					t.Errorf("%s imports %s: %s", show(from), to, f.why)
				}
			}
			if slices.Contains(engines, to) && from != "storage" && from != "storage/engine" {
				t.Errorf("%s imports %s: only storage imports its engine; use storage's names", show(from), to)
			}
		}
	}
}

func show(pkg string) string {
	if pkg == "" {
		return "main"
	}
	return pkg
}

// nonTestLines counts the lines of a package's non-test Go files, as
// wc -l would.
func nonTestLines(t *testing.T, p goPackage) int {
	t.Helper()
	n := 0
	for _, f := range p.GoFiles {
		b, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n
}

func TestPackagesStayWithinTheirBudgets(t *testing.T) {
	_, pkgs := listPackages(t)
	serviceMethod := regexp.MustCompile(`(?m)^func \(\w+ \*Service\) `)
	for _, p := range pkgs {
		name, _ := rel(p.ImportPath)
		n := nonTestLines(t, p)
		if name == "core" {
			if n > coreLineBudget {
				t.Errorf("core is %d lines of non-test Go, over its budget of %d: give the feature a package of its own", n, coreLineBudget)
			}
			methods := 0
			for _, f := range p.GoFiles {
				b, err := os.ReadFile(filepath.Join(p.Dir, f))
				if err != nil {
					t.Fatal(err)
				}
				methods += len(serviceMethod.FindAll(b, -1))
			}
			if methods > serviceMethodLimit {
				t.Errorf("Service has %d methods, over %d: a capability's methods belong on its own type", methods, serviceMethodLimit)
			}
			t.Logf("core: %d lines, Service: %d methods", n, methods)
		}
		if n > packageLineBudget {
			t.Errorf("%s is %d lines of non-test Go, over %d", show(name), n, packageLineBudget)
		}
	}
}

// Every package has a package comment saying what it owns, and the
// README's "How it is built" names it.
func TestEveryPackageIsDocumented(t *testing.T) {
	root, pkgs := listPackages(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := sectionOf(string(readme), "## How it is built")
	if section == "" {
		t.Fatal(`README.md has no "## How it is built" section`)
	}
	for _, p := range pkgs {
		name, _ := rel(p.ImportPath)
		if name == "" || strings.Contains(name, "/internal/") && !strings.HasSuffix(name, "/internal/provider") {
			continue
		}
		if !strings.Contains(section, "`"+name+"`") && !strings.Contains(section, "`"+name+"/`") {
			t.Errorf("README's \"How it is built\" does not name `%s`", name)
		}
		if !hasPackageDoc(t, p) {
			t.Errorf("%s has no package comment (a doc.go saying what it owns and what it may import)", name)
		}
	}
}

func sectionOf(doc, heading string) string {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after
}

func hasPackageDoc(t *testing.T, p goPackage) bool {
	t.Helper()
	for _, f := range p.GoFiles {
		fh, err := os.Open(filepath.Join(p.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		prevComment := false
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "package ") {
				if prevComment {
					fh.Close()
					return true
				}
				break
			}
			prevComment = strings.HasPrefix(line, "//") && !strings.HasPrefix(line, "//go:")
		}
		fh.Close()
	}
	return false
}

// The layers above are the README's arrows; print them for a reader who
// runs the test verbosely.
func TestLayersAreListed(t *testing.T) {
	_, pkgs := listPackages(t)
	byLayer := map[int][]string{}
	for _, p := range pkgs {
		name, _ := rel(p.ImportPath)
		byLayer[layerOf(name)] = append(byLayer[layerOf(name)], show(name))
	}
	for l, name := range layerNames {
		t.Log(fmt.Sprintf("%-16s", name), strings.Join(byLayer[l], " "))
	}
}
