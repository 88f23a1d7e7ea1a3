package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/analytics"

	"github.com/cairnmem/cairn/core/extract"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// errSkipJob completes a job as skipped with its text as the reason.
type errSkipJob string

func (e errSkipJob) Error() string { return string(e) }

// SessionMinTranscriptChars: shorter transcripts (after cairn's own
// injected blocks are stripped) are not worth a model call.
const SessionMinTranscriptChars = 200

// sessionMaxWindows caps how many extraction windows of a long transcript
// are sent to the model (the rest is dropped with a warning).
const sessionMaxWindows = 5

// sessionText is a session's transcript and how much of it earlier jobs
// extracted.
type sessionText struct {
	key     string
	content string
	from    int // bytes of content extracted before
}

// unread is the part of the transcript no job has extracted.
func (t *sessionText) unread() string { return t.content[t.from:] }

// hash is the hash of the whole transcript, recorded once it is extracted.
func (t *sessionText) hash() string { return prefixHash(t.content) }

func prefixHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sessionSource loads a session_extract job's transcript and a stand-in
// source memory "session:<key>" carrying the session's project. A resumed
// session's transcript starts with what an earlier job extracted (same
// length, same hash): only the turns after it are read. Too little new text
// skips the job.
func (s *Pipeline) sessionSource(ctx context.Context, job *storage.Job) (*storage.Memory, *sessionText, error) {
	var p struct {
		SessionKey string `json:"session_key"`
		Project    string `json:"project"`
	}
	if err := json.Unmarshal([]byte(job.Payload), &p); err != nil || p.SessionKey == "" {
		return nil, nil, errSkipJob("payload has no session_key")
	}
	r := s.svc.DB().Reader()
	content, project, err := storage.TranscriptContent(ctx, r, p.SessionKey)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil, errSkipJob("session transcript is gone")
	} else if err != nil {
		return nil, nil, err
	}
	t := &sessionText{key: p.SessionKey, content: content}
	done, hash, err := storage.TranscriptExtracted(ctx, r, p.SessionKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, nil, err
	}
	if done > 0 && done <= len(content) && prefixHash(content[:done]) == hash {
		t.from = done
	}
	if n := utf8.RuneCountInString(stripInjectedBlocks(t.unread())); n < SessionMinTranscriptChars {
		if t.from > 0 {
			return nil, nil, errSkipJob(fmt.Sprintf("no new turns since the last extraction (%d characters, fewer than %d)", n, SessionMinTranscriptChars))
		}
		return nil, nil, errSkipJob(fmt.Sprintf("transcript shorter than %d characters", SessionMinTranscriptChars))
	}
	proj := project
	if proj == "" {
		proj = p.Project
	}
	return &storage.Memory{ID: "session:" + p.SessionKey, Project: proj, SessionID: p.SessionKey}, t, nil
}

// extractWindows runs extraction on text: one call for a memory (input
// truncated at ExtractMaxInputChars), or up to sessionMaxWindows calls over
// consecutive windows of a long transcript, merged with duplicate facts
// dropped and the usual caps applied. A model error fails the job (it is
// retried); parse problems are warnings.
func (s *Pipeline) extractWindows(ctx context.Context, body string, windowed bool, llm extract.LLM, srcID string) (extract.ExtractionResult, []string, error) {
	var out extract.ExtractionResult
	var warns []string
	windows := []string{body}
	if windowed {
		windows = text.ChunkLines(body, extract.ExtractMaxInputChars-200)
		if len(windows) > sessionMaxWindows {
			warns = append(warns, fmt.Sprintf("transcript has %d extraction windows; the last %d were not read", len(windows), len(windows)-sessionMaxWindows))
			windows = windows[:sessionMaxWindows]
		}
	}
	seen := map[string]bool{}
	called := false
	var parseWarns []string
	for _, w := range windows {
		input, tooShort := extract.ExtractionInput(w)
		if tooShort {
			continue
		}
		called = true
		t0 := time.Now()
		raw, err := llm.Generate(ctx, extract.ExtractionPrompt(input), extract.GenerateOptions{JSON: true, Timeout: s.pipelineTimeout()})
		s.svc.Analytics().RecordProviderCall("llm:"+llm.Name(), time.Since(t0), err)
		if err != nil {
			s.noteExtraction(analytics.StageExtraction, analytics.TimeoutCode(err, analytics.CodeExtractionTimeout, analytics.CodeExtractionProvider), err.Error(), srcID)
			return out, warns, fmt.Errorf("extraction: %w", err)
		}
		ext, ws := extract.ParseExtraction(raw)
		warns = append(warns, ws...)
		parseWarns = append(parseWarns, ws...)
		for _, f := range ext.Facts {
			h := text.NormalizeContent(f.Content).Hash
			if seen[h] || len(out.Facts) >= extract.ExtractMaxFacts {
				continue
			}
			seen[h] = true
			out.Facts = append(out.Facts, f)
		}
		for _, e := range ext.Entities {
			if len(out.Entities) < extract.ExtractMaxEntities {
				out.Entities = append(out.Entities, e)
			}
		}
		out.Mentions = append(out.Mentions, ext.Mentions...)
	}
	if called {
		if len(out.Facts) == 0 && len(parseWarns) > 0 {
			s.noteExtraction(analytics.StageExtraction, analytics.CodeExtractionParseFail, strings.Join(parseWarns, "; "), srcID)
		}
		if n := s.svc.Analytics().RecordExtraction(len(out.Facts)); n == core.EmptyExtractionsMax {
			s.noteExtraction(analytics.StageExtraction, analytics.CodeExtractionEmptyRepeated,
				fmt.Sprintf("%d extractions in a row by %s produced no fact", n, llm.Name()), srcID)
		}
	}
	return out, warns, nil
}

// proposalSource returns the memory a proposal came from, or for a
// session's proposal ("session:<key>") a stand-in with the session's
// project; a vanished source is a stand-in with the id only.
func (s *Pipeline) proposalSource(ctx context.Context, id string) *storage.Memory {
	if key, ok := strings.CutPrefix(id, "session:"); ok {
		m := &storage.Memory{ID: id, SessionID: key}
		if project, err := storage.SessionProject(ctx, s.svc.DB().Reader(), key); err == nil {
			m.Project = project
		}
		return m
	}
	src, err := storage.GetMemory(ctx, s.svc.DB().Reader(), id)
	if err != nil {
		return &storage.Memory{ID: id}
	}
	return src
}

// isSessionSource reports whether a proposal's source is a session.
func isSessionSource(id string) bool { return strings.HasPrefix(id, "session:") }
