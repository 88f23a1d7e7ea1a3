package core_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rowWriters are the storage functions that write a memory row (or its
// supersession): only the write path may call them.
var rowWriters = []string{"UpdateMemory", "InsertMemory", "SetSupersededBy"}

// rowWriterPackages are the packages allowed to call them, as directories
// of the module: core's write path, and evolution, which core calls inside
// its write transaction. Tests and storage itself are not checked.
var rowWriterPackages = []string{"core", "core/evolution"}

// The one write path: a memory row changes only through core (and
// core/evolution, below it), so every change gets its checks, its history
// and what follows the commit. Another package that must change a memory
// does it through core's API inside its transaction (ForgetTx,
// MergeDuplicatesTx, ...), never with storage's row writers.
func TestOnlyTheWritePathWritesMemoryRows(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const storagePath = "github.com/cairnmem/cairn/storage"
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "storage" || strings.HasPrefix(rel, "storage/") || slices.Contains(rowWriterPackages, rel) {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		// The names storage is imported under in this file.
		names := map[string]bool{}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == storagePath {
				name := "storage"
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = true
			}
		}
		if len(names) == 0 {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] && slices.Contains(rowWriters, sel.Sel.Name) {
				relFile, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: storage.%s outside the write path: change the memory through core's API (%s may call it)",
					filepath.ToSlash(relFile), fset.Position(sel.Pos()).Line, sel.Sel.Name, strings.Join(rowWriterPackages, ", "))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked: is %s the module root?", checked, root)
	}
}
