package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairnmem/cairn/core"
	"github.com/cairnmem/cairn/storage"
)

func runRemember(ctx context.Context, args []string) error {
	fs, common := newFlagSet("remember", "remember [flags] TEXT")
	tags := fs.String("tags", "", "comma-separated tags")
	typ := fs.String("type", "", "memory type (default: inferred from the text)")
	importance := fs.Float64("importance", -1, "importance from 0 to 1 (default 0.8, or 1.0 with --critical)")
	critical := fs.Bool("critical", false, "pin the memory with importance 1.0")
	project := fs.String("project", "", "project the memory belongs to")
	who := fs.String("who", "", "who the memory is from (default cli)")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	text := strings.Join(pos, " ")
	if strings.TrimSpace(text) == "" {
		return usageError{"nothing to remember: cairn remember [flags] TEXT"}
	}
	req := map[string]any{"content": text}
	if *critical {
		req["content"] = "critical: " + text
	}
	if *tags != "" {
		req["tags"] = *tags
	}
	if *typ != "" {
		req["type"] = *typ
	}
	if *importance >= 0 {
		req["importance"] = *importance
	}
	if *project != "" {
		req["project"] = *project
	}
	req["who"] = "cli"
	if *who != "" {
		req["who"] = *who
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	be, err := a.openBackend(ctx)
	if err != nil {
		return err
	}
	defer be.Close()
	raw, err := be.Remember(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		fmt.Println(string(raw))
		return nil
	}
	var out struct {
		ID         string   `json:"id"`
		Type       string   `json:"type"`
		Tags       []string `json:"tags"`
		Pinned     bool     `json:"pinned"`
		Importance float64  `json:"importance"`
		Deduped    bool     `json:"deduped"`
		Chunked    bool     `json:"chunked"`
		IDs        []string `json:"ids"`
		GroupID    string   `json:"group_id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return err
	}
	switch {
	case out.Chunked:
		fmt.Printf("remembered in %d chunks (group %s)\n", len(out.IDs), out.GroupID)
	case out.Deduped:
		fmt.Printf("already remembered as %s\n", out.ID)
	default:
		details := []string{out.Type, fmt.Sprintf("importance %.2g", out.Importance)}
		if out.Pinned {
			details = append(details, "pinned")
		}
		if len(out.Tags) > 0 {
			details = append(details, "tags "+strings.Join(out.Tags, ","))
		}
		fmt.Printf("remembered %s (%s)\n", out.ID, strings.Join(details, ", "))
	}
	return nil
}

func runRecall(ctx context.Context, args []string) error {
	fs, common := newFlagSet("recall", "recall [flags] QUERY")
	limit := fs.Int("limit", 10, "how many results")
	typ := fs.String("type", "", "only this memory type")
	tags := fs.String("tags", "", "only memories with all of these comma-separated tags")
	project := fs.String("project", "", "only this project")
	who := fs.String("who", "", "only memories from this source")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return usageError{"nothing to search for: cairn recall [flags] QUERY"}
	}
	req := map[string]any{"query": query, "limit": *limit}
	for k, v := range map[string]string{"type": *typ, "tags": *tags, "project": *project, "who": *who} {
		if v != "" {
			req[k] = v
		}
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	be, err := a.openBackend(ctx)
	if err != nil {
		return err
	}
	defer be.Close()
	res, err := be.Recall(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if len(res.Results) == 0 {
		fmt.Fprintln(os.Stderr, "no memories match")
		return nil
	}
	for _, r := range res.Results {
		fmt.Println(formatHit(r))
	}
	return nil
}

// formatHit renders one result as "date [score] ★content [tags] · type · who".
func formatHit(r *core.RecallHit) string {
	date := r.CreatedAt
	if t, err := storage.ParseTime(r.CreatedAt); err == nil {
		date = t.Local().Format("2006-01-02")
	}
	pin := ""
	if r.Pinned {
		pin = "★ "
	}
	line := fmt.Sprintf("%s [%3.0f%%] %s%s", date, r.Score*100, pin, r.Content)
	if len(r.Tags) > 0 {
		line += " [" + strings.Join(r.Tags, ",") + "]"
	}
	line += " · " + r.Type
	if r.Who != "" {
		line += " · " + r.Who
	}
	return line
}
