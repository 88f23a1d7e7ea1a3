package postgres

import (
	"strconv"
	"strings"
	"sync"
)

// Rebind turns SQLite's parameters in q into PostgreSQL's: a bare ? is
// numbered as SQLite numbers it (one more than the largest number given
// before it), ?N becomes $N. String literals, quoted identifiers and
// comments are left alone, and so is a $N already there. It is the
// lexical part of running storage's SQLite-flavoured statements here
// (docs/design/postgres.md, "Plan: storage's queries on PostgreSQL").
func Rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	largest := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := closing(q, i+1, c)
			b.WriteString(q[i:j])
			i = j - 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := largest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			largest = max(largest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// closing is the index just past the quote that closes a literal opened
// before from, a doubled quote being part of it (or len(q)).
func closing(q string, from int, quote byte) int {
	for j := from; j < len(q); j++ {
		if q[j] == quote {
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// rebound caches Rebind by query text: storage keeps a query's text fixed
// whatever its arguments, so the texts are few.
var rebound sync.Map // string → string

func rebindCached(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	r := Rebind(q)
	rebound.Store(q, r)
	return r
}
