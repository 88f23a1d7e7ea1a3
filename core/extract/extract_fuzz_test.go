package extract

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func addExtractSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "extract", "*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{"", "{", "}", "{}", `{"facts":[`, "<think>", "</think>{}", "```json\n{}\n```", `{"facts":[{"content":"\u0000\ud800 broken surrogate text here"}]}`, `{"a":"\"}{"}`} {
		f.Add(s)
	}
}

// FuzzParseExtraction: any input returns without panicking, and what is
// returned obeys the limits.
func FuzzParseExtraction(f *testing.F) {
	addExtractSeeds(f)
	f.Fuzz(func(t *testing.T, raw string) {
		r, _ := ParseExtraction(raw)
		if len(r.Facts) > ExtractMaxFacts || len(r.Entities) > ExtractMaxEntities {
			t.Fatalf("%d facts, %d entities", len(r.Facts), len(r.Entities))
		}
		for _, fa := range r.Facts {
			n := utf8.RuneCountInString(fa.Content)
			if n < FactMinChars || n > FactMaxChars || !validFactType(fa.Type) || fa.Confidence < 0 || fa.Confidence > 1 || !utf8.ValidString(fa.Content) {
				t.Fatalf("bad fact %+v", fa)
			}
		}
		for _, e := range r.Entities {
			if e.Source == "" || e.Target == "" || e.Relationship == "" || e.Confidence < 0 || e.Confidence > 1 {
				t.Fatalf("bad entity %+v", e)
			}
		}
	})
}

// FuzzParseDecision: any input returns without panicking; an accepted
// decision is well-formed.
func FuzzParseDecision(f *testing.F) {
	addExtractSeeds(f)
	f.Add(`{"action":"update","targetId":"mem-1","confidence":2,"reason":"r"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		ids := []string{"mem-1", "mem-2"}
		d, _ := ParseDecision(raw, ids)
		switch d.Action {
		case "":
			if d != (Decision{}) {
				t.Fatalf("rejected but not zero: %+v", d)
			}
		case ActionUpdate, ActionDelete:
			if d.TargetID != "mem-1" && d.TargetID != "mem-2" {
				t.Fatalf("target %q", d.TargetID)
			}
			fallthrough
		case ActionAdd, ActionNone:
			if d.Reason == "" || d.Confidence < 0 || d.Confidence > 1 {
				t.Fatalf("bad decision %+v", d)
			}
		default:
			t.Fatalf("action %q", d.Action)
		}
	})
}

// FuzzParseContradiction: any model answer returns without panicking, and
// an accepted verdict has a confidence in 0..1.
func FuzzParseContradiction(f *testing.F) {
	addExtractSeeds(f)
	for _, s := range []string{`{"contradicts": true, "confidence": 0.9, "reason": "x"}`, `{"contradicts": "yes"}`,
		"<think>no</think>```json\n{\"contradicts\": false,}\n```", `{"contradicts": null}`, `{"contradicts": 1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, ok, _ := ParseContradiction(raw)
		if ok && (v.Confidence < 0 || v.Confidence > 1 || !utf8.ValidString(v.Reason)) {
			t.Fatalf("bad verdict %+v", v)
		}
		if !ok && v.Contradicts {
			t.Fatal("a rejected answer says contradicts")
		}
	})
}
