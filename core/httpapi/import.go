package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/cairnmem/cairn/core"

	"github.com/cairnmem/cairn/core/text"
	"github.com/cairnmem/cairn/storage"
)

// maxImportLine bounds one JSONL line (a memory is at most
// guardrails.max_remember_chars plus its fields).
const maxImportLine = 16 << 20

// ReadImportLines parses a JSONL export: one memory object per line, blank
// lines and the export's trailer ignored. Every line is checked before
// anything is written; the first bad line is reported with its number and
// field.
func ReadImportLines(r io.Reader) ([]core.ImportLine, *core.Error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxImportLine)
	var out []core.ImportLine
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		b, e := parseBody([]byte(line))
		if e != nil {
			return nil, lineError(n, "", strings.TrimPrefix(e.Message, "Invalid JSON body: "))
		}
		if _, end := b["_end"]; end && len(b) == 1 {
			continue
		}
		var m core.Memory
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) {
				return nil, lineError(n, ute.Field, fmt.Sprintf("%s must be %s", ute.Field, ute.Type))
			}
			return nil, lineError(n, "", err.Error())
		}
		if e := validateImport(&m); e != nil {
			return nil, lineError(n, fmt.Sprint(e.Extra["field"]), e.Message)
		}
		out = append(out, core.ImportLine{Line: n, Memory: m})
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
	return out, nil
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
