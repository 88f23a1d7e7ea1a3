package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Turn is one line of a conversation. Session numbers the conversation's
// session it belongs to (LoCoMo's session_N).
type Turn struct {
	DiaID, Speaker, Text, Caption string
	Session                       int
}

// Content is what one turn is stored as: "<speaker>: <text>", with an
// image's caption in brackets when the turn shared one.
func Content(t Turn) string {
	c := t.Speaker + ": " + t.Text
	if t.Caption != "" {
		c += " [" + t.Caption + "]"
	}
	return c
}

// Question is one scored question about a conversation.
type Question struct {
	Question string
	Evidence []string // repaired, valid, deduplicated
	Category int      // 0 when missing or unreadable
}

// Sample is one conversation with its questions.
type Sample struct {
	ID        string
	Turns     []Turn
	Questions []Question
	// Repairs counts what loading did to this sample's evidence ids.
	Repairs EvidenceStats
}

// EvidenceStats counts the evidence repairs: entries that were not a valid
// dia id as given but yielded valid ones (split lists, "D:11:26",
// "D30:05"), ids that could not be repaired, and questions left without
// any valid evidence (not scored).
type EvidenceStats struct {
	Repaired int `json:"repaired"`
	Dropped  int `json:"dropped"`
	Skipped  int `json:"skipped_questions"`
}

// Add adds o's counts to e.
func (e *EvidenceStats) Add(o EvidenceStats) {
	e.Repaired += o.Repaired
	e.Dropped += o.Dropped
	e.Skipped += o.Skipped
}

// TotalEvidence sums the evidence repairs of samples.
func TotalEvidence(samples []Sample) EvidenceStats {
	var ev EvidenceStats
	for _, s := range samples {
		ev.Add(s.Repairs)
	}
	return ev
}

var sessionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^session_(\d+)$`) })

// LoadLocomo reads a LoCoMo-format file. It tolerates missing or oddly typed
// fields in qa items, repairs malformed evidence ids and skips questions
// left with no valid evidence.
func LoadLocomo(path string) ([]Sample, EvidenceStats, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, EvidenceStats{}, err
	}
	var in []struct {
		SampleID     json.RawMessage            `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []map[string]any           `json:"qa"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, EvidenceStats{}, fmt.Errorf("%s: not a LoCoMo-format file (a JSON list of samples): %w", path, err)
	}
	var out []Sample
	var total EvidenceStats
	for i, s := range in {
		sm := Sample{ID: jsonScalar(s.SampleID)}
		if sm.ID == "" {
			sm.ID = fmt.Sprintf("sample-%d", i+1)
		}
		type session struct {
			n     int
			turns json.RawMessage
		}
		var sessions []session
		for key, v := range s.Conversation {
			if m := sessionKey().FindStringSubmatch(key); m != nil {
				n, _ := strconv.Atoi(m[1])
				sessions = append(sessions, session{n, v})
			}
		}
		sort.Slice(sessions, func(a, b int) bool { return sessions[a].n < sessions[b].n })
		valid := map[string]bool{}
		for _, ses := range sessions {
			var turns []struct {
				Speaker     string `json:"speaker"`
				DiaID       string `json:"dia_id"`
				Text        string `json:"text"`
				BlipCaption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(ses.turns, &turns); err != nil {
				return nil, EvidenceStats{}, fmt.Errorf("%s: %s session_%d: %w", path, sm.ID, ses.n, err)
			}
			for _, t := range turns {
				t.DiaID = strings.TrimSpace(t.DiaID)
				if t.DiaID == "" || valid[t.DiaID] || strings.TrimSpace(t.Text+t.BlipCaption) == "" {
					continue
				}
				valid[t.DiaID] = true
				sm.Turns = append(sm.Turns, Turn{DiaID: t.DiaID, Speaker: strings.TrimSpace(t.Speaker),
					Text: strings.TrimSpace(t.Text), Caption: strings.TrimSpace(t.BlipCaption), Session: ses.n})
			}
		}
		for _, qa := range s.QA {
			q, _ := qa["question"].(string)
			q = strings.TrimSpace(q)
			var rawEv []string
			switch e := qa["evidence"].(type) {
			case string:
				rawEv = []string{e}
			case []any:
				for _, x := range e {
					if str, ok := x.(string); ok {
						rawEv = append(rawEv, str)
					}
				}
			}
			ids, repaired, dropped := RepairEvidence(rawEv, valid)
			sm.Repairs.Repaired += repaired
			sm.Repairs.Dropped += dropped
			if q == "" || len(ids) == 0 {
				sm.Repairs.Skipped++
				continue
			}
			sm.Questions = append(sm.Questions, Question{Question: q, Evidence: ids, Category: anyInt(qa["category"])})
		}
		total.Add(sm.Repairs)
		out = append(out, sm)
	}
	if len(out) == 0 {
		return nil, total, fmt.Errorf("%s: no samples", path)
	}
	return out, total, nil
}

// jsonScalar renders a string or number as a string.
func jsonScalar(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(r, &n) == nil {
		return n.String()
	}
	return ""
}

// anyInt reads a category given as a number or a numeric string; 0 if neither.
func anyInt(v any) int {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) {
			return int(x)
		}
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err == nil {
			return n
		}
	}
	return 0
}

var diaIDLoose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[Dd]\W*0*(\d+)\W+0*(\d+)$`) })

// RepairEvidence returns the valid dia ids named by raw evidence entries, in
// order and without repeats. An entry that is not itself a valid id is split
// on ';', ',' and spaces, and each part normalized ("D:11:26" -> "D11:26",
// "D30:05" -> "D30:5"); parts that still name no turn are dropped. repaired
// counts entries that needed this and yielded at least one valid id;
// dropped counts parts that could not be repaired.
func RepairEvidence(raw []string, valid map[string]bool) (ids []string, repaired, dropped int) {
	seen := map[string]bool{}
	keep := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, e := range raw {
		e = strings.TrimSpace(e)
		if valid[e] {
			keep(e)
			continue
		}
		parts := strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n' })
		fixed := 0
		for _, p := range parts {
			if !valid[p] {
				if m := diaIDLoose().FindStringSubmatch(p); m != nil {
					a, _ := strconv.Atoi(m[1])
					b, _ := strconv.Atoi(m[2])
					p = fmt.Sprintf("D%d:%d", a, b)
				}
			}
			if valid[p] {
				keep(p)
				fixed++
			} else {
				dropped++
			}
		}
		if fixed > 0 {
			repaired++
		}
	}
	return ids, repaired, dropped
}
