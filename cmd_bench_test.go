package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

const tinyLocomo = "core/bench/testdata/tiny-locomo.json"

func TestBenchUsage(t *testing.T) {
	ctx := context.Background()
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{},
		{"other", "--data", tinyLocomo},
		{"locomo"},
		{"locomo", "--data", tinyLocomo, "--ablations", "fuzzy"},
		{"locomo", "--data", tinyLocomo, "--k", "0"},
		{"locomo", "--data", tinyLocomo, "--clients", "0"},
		{"locomo", "--data", tinyLocomo, "--set", "search.nope=1"},
		{"locomo", "--data", tinyLocomo, "--set", "novalue"},
		{"locomo", "--loco", "--data", tinyLocomo, "--factor", "search.alpha=0.5"},
		{"locomo", "--loco", "--data", tinyLocomo, "--factor", "search.alpha=0.5,7"},
		{"locomo", "--loco", "--data", tinyLocomo, "--factor", "search.nope=1,2"},
		{"locomo", "--loco", "--data", tinyLocomo, "--factor", "novalues"},
		{"locomo", "--loco", "--data", tinyLocomo, "--rounds", "0"},
		{"locomo", "--loco", "--data", tinyLocomo, "--convs", "1"},
	} {
		err := benchMain(ctx, args, &out, &errb)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("bench %q: err %v, want a usage error", args, err)
		}
	}
}
