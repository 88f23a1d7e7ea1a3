package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EditFile applies edit to the JSON object in path (missing: {}),
// keeping the order of keys, and writes it back atomically if it changed,
// after copying the old file to a timestamped backup beside it
// (PATH.cairn-backup-TIME).
func EditFile(path string, edit func(*Object) error) (changed bool, backup string, err error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, "", err
	}
	top := New()
	if len(bytes.TrimSpace(old)) > 0 {
		if top, err = Parse(old); err != nil {
			return false, "", fmt.Errorf("not a JSON object (fix or move it first): %w", err)
		}
	}
	if err := edit(top); err != nil {
		return false, "", err
	}
	out, err := top.MarshalKeeping(DetectIndent(old))
	if err != nil {
		return false, "", err
	}
	if len(bytes.TrimSpace(old)) > 0 {
		if a, b := Compact(old), Compact(out); a != "" && a == b {
			return false, "", nil
		}
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, "", err
	}
	if len(old) > 0 {
		backup = path + ".cairn-backup-" + time.Now().UTC().Format("20060102T150405.000")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return false, "", fmt.Errorf("backup: %w", err)
		}
	}
	tmp := path + ".cairn-tmp"
	if err := os.WriteFile(tmp, out, mode); err != nil {
		return false, "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, "", err
	}
	return true, backup, nil
}

// Compact is b without insignificant space, or "" when b is not JSON: two
// documents are equal when their Compact forms are.
func Compact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return ""
	}
	return buf.String()
}

// Object is a JSON object that keeps its keys in order and its values as
// written, so editing one key leaves the rest of a user's file alone.
type Object struct {
	keys     []string
	vals     map[string]json.RawMessage
	dirty    map[string]bool    // keys set to a different value since parsing
	children map[string]*Object // objects set with SetObject, rendered keeping their own untouched values
}

// New returns an empty object.
func New() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// Parse reads one JSON object (and nothing after it).
func Parse(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected an object")
	}
	o := New()
	defer func() { o.dirty = nil }() // as parsed: nothing changed yet
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.Set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the object")
	}
	return o, nil
}

// Keys are the object's keys in order.
func (o *Object) Keys() []string { return o.keys }

// Get returns the value of k as written.
func (o *Object) Get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Set sets k to v: a new key goes last, an existing one keeps its place.
func (o *Object) Set(k string, v json.RawMessage) {
	old, ok := o.vals[k]
	if !ok {
		o.keys = append(o.keys, k)
	}
	if !ok || Compact(old) != Compact(v) {
		if o.dirty == nil {
			o.dirty = map[string]bool{}
		}
		o.dirty[k] = true
	}
	o.vals[k] = v
}

// Del removes k.
func (o *Object) Del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Object returns the nested object at k (an empty one when absent or
// null).
func (o *Object) Object(k string) (*Object, error) {
	raw, ok := o.vals[k]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return New(), nil
	}
	sub, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not an object", k)
	}
	return sub, nil
}

// SetObject sets k to sub, which is rendered keeping the values of its
// own keys that did not change.
func (o *Object) SetObject(k string, sub *Object) error {
	b, err := sub.Marshal()
	if err != nil {
		return err
	}
	o.Set(k, b)
	if o.children == nil {
		o.children = map[string]*Object{}
	}
	o.children[k] = sub
	return nil
}

// Marshal renders the object compactly, its values as written.
func (o *Object) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalKeeping renders the object one key per line indented by indent:
// the values of keys not changed since parsing exactly as they were
// written (their own formatting kept), changed ones indented to match.
func (o *Object) MarshalKeeping(indent string) ([]byte, error) {
	var buf bytes.Buffer
	if err := o.render(&buf, indent, 1); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// render writes o at nesting depth (1: the top object's keys).
func (o *Object) render(buf *bytes.Buffer, indent string, depth int) error {
	pad := strings.Repeat(indent, depth)
	buf.WriteString("{")
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n" + pad)
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteString(": ")
		v := o.vals[k]
		switch {
		case !o.dirty[k]:
			buf.Write(bytes.TrimSpace(v))
		case o.children[k] != nil:
			if err := o.children[k].render(buf, indent, depth+1); err != nil {
				return err
			}
		default:
			if err := json.Indent(buf, []byte(Compact(v)), pad, indent); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	if len(o.keys) > 0 {
		buf.WriteString("\n" + strings.Repeat(indent, depth-1))
	}
	buf.WriteString("}")
	return nil
}

// DetectIndent is the indentation of a JSON file's first indented line
// (two spaces when it has none).
func DetectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}
