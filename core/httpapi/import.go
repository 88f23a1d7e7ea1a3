package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/evolution"
	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/core/transfer"
	"github.com/cairnmem/cairn/storage"
)

// maxImportLine bounds one JSONL line (a memory is at most
// guardrails.max_remember_chars plus its fields).
const maxImportLine = 16 << 20

// ReadImportLines parses a JSONL export: one memory object per line, blank
// lines and the export's trailer ignored. Every line is checked before
// anything is written; the first bad line is reported with its number and
// field. Lines are parsed on every core.
func ReadImportLines(r io.Reader) ([]transfer.ImportLine, *core.Error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	type rawLine struct {
		n    int
		text string
	}
	var raw []rawLine
	n := 0
	for sc.Scan() {
		n++
		if line := strings.TrimSpace(sc.Text()); line != "" {
			raw = append(raw, rawLine{n, line})
		}
	}
	out := make([]transfer.ImportLine, len(raw))
	keep := make([]bool, len(raw))
	errs := make([]*core.Error, len(raw))
	workers := min(runtime.GOMAXPROCS(0), max(len(raw)/256, 1))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := len(raw)*w/workers, len(raw)*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i], keep[i], errs[i] = parseImportLine(raw[i].n, raw[i].text)
				if errs[i] != nil {
					return // lines after a bad one are not needed
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	if err := sc.Err(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &core.Error{Code: core.CodeTooLarge, Message: "import body is too large; send it in smaller batches"}
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return nil, bodyReadError(err, 0)
		}
		return nil, lineError(n+1, "", err.Error())
	}
	lines := out[:0]
	for i, l := range out {
		if keep[i] {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// parseImportLine parses line number n; keep is false for the export's
// trailer.
func parseImportLine(n int, line string) (l transfer.ImportLine, keep bool, e *core.Error) {
	b, e := parseBody([]byte(line))
	if e != nil {
		return l, false, lineError(n, "", strings.TrimPrefix(e.Message, "Invalid JSON body: "))
	}
	if _, end := b["_end"]; end && len(b) == 1 {
		return l, false, nil
	}
	// The line's "evolution" is what export carries (evolution.Carried); it
	// shadows the memory's own, which export leaves out.
	var rec struct {
		core.Memory
		Evolution *evolution.Carried `json:"evolution"`
	}
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			field := strings.TrimPrefix(ute.Field, "Memory.") // the embedded memory's fields are the line's
			return l, false, lineError(n, field, fmt.Sprintf("%s must be %s", field, ute.Type))
		}
		return l, false, lineError(n, "", err.Error())
	}
	m := rec.Memory
	if e := validateImport(&m); e != nil {
		return l, false, lineError(n, fmt.Sprint(e.Extra["field"]), e.Message)
	}
	if e := transfer.CheckCarried(&m, rec.Evolution); e != nil {
		return l, false, lineError(n, fmt.Sprint(e.Extra["field"]), e.Message)
	}
	return transfer.ImportLine{Line: n, Memory: m, Evolution: rec.Evolution}, true, nil
}

func lineError(line int, field, msg string) *core.Error {
	extra := map[string]any{"line": line}
	if field != "" {
		extra["field"] = field
	}
	return &core.Error{Code: core.CodeInvalidRequest, Message: fmt.Sprintf("line %d: %s", line, msg), Extra: extra}
}

func validateImport(m *core.Memory) *core.Error {
	if !text.ValidUTF8(m.Content) || text.NormalizeContent(m.Content).Storage == "" {
		return core.Invalid("content", "content is required")
	}
	if !core.ValidUnit(m.Importance) {
		return core.Invalid("importance", "importance must be a number between 0 and 1")
	}
	if m.Confidence == 0 {
		m.Confidence = 1
	}
	if !core.ValidUnit(m.Confidence) {
		return core.Invalid("confidence", "confidence must be a number between 0 and 1")
	}
	if m.Version < 0 {
		return core.Invalid("version", "version must be a positive integer")
	}
	for field, ts := range map[string]string{"created_at": m.CreatedAt, "updated_at": m.UpdatedAt, "deleted_at": m.DeletedAt, "last_accessed": m.LastAccessed} {
		if ts == "" {
			continue
		}
		if _, err := storage.ParseTime(ts); err != nil {
			return core.Invalid(field, "%s must be an RFC 3339 time", field)
		}
	}
	if m.IsDeleted && m.DeletedAt == "" {
		return core.Invalid("deleted_at", "deleted_at is required when is_deleted is true")
	}
	return nil
}
