package pane

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/core/app"
	"github.com/cairnmem/cairn/core/client"
	"github.com/cairnmem/cairn/core/config"
	"github.com/cairnmem/cairn/storage"
)

// Hostile is a stored value that would drive the terminal if printed raw:
// OSC 52 (clipboard), OSC 0 (title), an OSC 8 link, CSI 2J (clear), a DCS
// request, a C1 CSI and SGR colours, across two lines.
const Hostile = "a\x1b]52;c;cHduZWQ=\x07b\x1b]0;pwned\x07c\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\" +
	"d\x1b[2Je\x1bP+q544e\x1b\\f\u009b31mg\x1b[31mred\x1b[0m\u200b\nsecond line"

// unsafe reports the first character a terminal would act on, and whether
// a line break is left where multi is false.
func unsafeRune(s string, multi bool) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if !multi {
				return r, true
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return r, true
		}
	}
	return 0, false
}

// fill sets every exported string reachable from v to Hostile, allocating
// pointers and giving slices and maps one element.
func fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(Hostile)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		if v.Type().NumMethod() == 0 {
			v.Set(reflect.ValueOf(Hostile))
		}
	}
}

// check fails t for any unsafe string reachable from v.
func check(t *testing.T, path string, v reflect.Value, multi bool) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		if r, bad := unsafeRune(v.String(), multi); bad {
			t.Errorf("%s keeps %U: %q", path, r, v.String())
		}
		if strings.Contains(v.String(), "pwned") && strings.Contains(v.String(), "]0;") {
			t.Errorf("%s keeps an OSC body: %q", path, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			check(t, path, v.Elem(), multi)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				check(t, path+"."+f.Name, v.Field(i), multiLine[f.Name])
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			check(t, path+"[]", v.Index(i), multi)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			check(t, path+"{key}", it.Key(), false)
			check(t, path+"{}", it.Value(), multi)
		}
	}
}

// TestCleanEveryClientType fills every type a client method returns with
// hostile text and checks Clean leaves nothing a terminal would act on,
// in every field at every depth, without touching the original (an
// in-process client may hand out values the service shares).
func TestCleanEveryClientType(t *testing.T) {
	ct := reflect.TypeFor[client.Client]()
	seen := 0
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		for j := range m.Type.NumOut() {
			out := m.Type.Out(j)
			if out == errorType || out.Kind() == reflect.Bool {
				continue
			}
			seen++
			t.Run(m.Name+"/"+out.String(), func(t *testing.T) {
				orig := reflect.New(out).Elem()
				fill(orig, 0)
				got := clean(orig, false)
				check(t, out.String(), got, false)
				if out.Kind() == reflect.String {
					return
				}
				// The original still holds the raw text.
				raw, strs := false, 0
				var walk func(v reflect.Value)
				walk = func(v reflect.Value) {
					switch v.Kind() {
					case reflect.String:
						strs++
						raw = raw || v.String() == Hostile
					case reflect.Pointer, reflect.Interface:
						if !v.IsNil() {
							walk(v.Elem())
						}
					case reflect.Struct:
						for i := range v.NumField() {
							if v.Type().Field(i).IsExported() {
								walk(v.Field(i))
							}
						}
					case reflect.Slice, reflect.Array:
						for i := range v.Len() {
							walk(v.Index(i))
						}
					case reflect.Map:
						for it := v.MapRange(); it.Next(); {
							walk(it.Value())
						}
					}
				}
				walk(orig)
				if strs > 0 && !raw {
					t.Errorf("Clean changed the original %s", out)
				}
			})
		}
	}
	if seen < 20 {
		t.Fatalf("only %d result types checked: the Client interface changed shape?", seen)
	}
}

func TestCleanKeepsLinesWhereTheyBelong(t *testing.T) {
	m := Clean(&core.Memory{Content: Hostile, Project: Hostile, Tags: []string{"ok", "a\u200bb"}})
	if !strings.Contains(m.Content, "\nsecond line") {
		t.Errorf("content lost its line break: %q", m.Content)
	}
	if strings.Contains(m.Project, "\n") || !strings.Contains(m.Project, "<U+200B>") {
		t.Errorf("a one-line field keeps a break or hides an invisible character: %q", m.Project)
	}
	if m.Tags[0] != "ok" || m.Tags[1] != "a<U+200B>b" {
		t.Errorf("tags: %q", m.Tags)
	}
	for _, s := range []string{m.Content, m.Project} {
		for _, bad := range []string{"\x1b", "\x07", "\u009b", "pwned", "evil.example", "544e"} {
			if strings.Contains(s, bad) {
				t.Errorf("%q survives in %q", bad, s)
			}
		}
	}
}

func TestSafeError(t *testing.T) {
	base := &core.Error{Code: core.CodeVersionConflict, Message: "stored: " + Hostile}
	err := SafeError(&client.APIError{Status: 409, Err: base})
	if r, bad := unsafeRune(err.Error(), false); bad {
		t.Errorf("error text keeps %U: %q", r, err.Error())
	}
	if !errors.Is(err, core.ErrVersionConflict) || client.StatusOf(err) != 409 {
		t.Errorf("the chain is lost: Is=%v status=%d", errors.Is(err, core.ErrVersionConflict), client.StatusOf(err))
	}
	var ce *core.Error
	if !errors.As(err, &ce) || strings.Contains(ce.Message, "\x1b") {
		t.Errorf("errors.As finds the raw message: %q", ce.Message)
	}
	plain := SafeError(errors.New("read " + Hostile))
	if r, bad := unsafeRune(plain.Error(), false); bad {
		t.Errorf("plain error keeps %U", r)
	}
	if SafeError(nil) != nil {
		t.Error("SafeError(nil) is not nil")
	}
}

// TestSafeClientOverAStore reads a hostile memory back through a real
// in-process client wrapped by Safe: every read the panes make comes back
// clean, and the stored text is untouched.
func TestSafeClientOverAStore(t *testing.T) {
	ap := openTestApp(t)
	raw := client.Local(ap, LocalOptions)
	ctx := context.Background()
	// Identifiers (who, tags, type) holding escapes are refused at the
	// write path (core.CheckIdentifiers); the content still carries them.
	r, err := raw.Remember(ctx, core.RememberInput{Content: "deploy notes " + Hostile, Tags: []string{"ops"}, Who: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	c := Safe(raw)
	mem, err := c.Get(ctx, r.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Get", reflect.ValueOf(mem), false)
	list, err := c.List(ctx, core.MemoryFilter{}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "List", reflect.ValueOf(list), false)
	res, err := c.Recall(ctx, core.RecallInput{Query: "deploy notes", Explain: true, NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 {
		t.Fatal("recall found nothing")
	}
	check(t, "Recall", reflect.ValueOf(res), false)
	hist, err := c.MemoryHistory(ctx, r.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "MemoryHistory", reflect.ValueOf(hist), false)
	if _, err := c.Get(ctx, "no-such\x1b]0;x\x07", false); err == nil {
		t.Fatal("no error for a missing id")
	} else if r, bad := unsafeRune(err.Error(), false); bad {
		t.Errorf("error keeps %U: %q", r, err.Error())
	}
	stored, _ := raw.Get(ctx, r.ID, true)
	if !strings.Contains(stored.Content, "\x1b]52;") {
		t.Errorf("the store's copy was changed: %q", stored.Content)
	}
}

func openTestApp(t *testing.T) *app.App {
	t.Helper()
	db, err := storage.Open(context.Background(), storage.Options{Path: filepath.Join(t.TempDir(), "memories.db"), NoBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return app.New(db, config.DefaultConfig(), app.Options{})
}
