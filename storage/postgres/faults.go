package postgres

import (
	"errors"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// Fault is what went wrong with the database itself rather than with a
// query, named as the SQLite engine names its faults (storage/sqlite's
// Fault), plus the server out of reach.
type Fault string

// The faults, from a PostgreSQL SQLSTATE or the connection.
const (
	FaultNone        Fault = ""
	FaultFull        Fault = "full"        // 53100 disk_full, 53200 out_of_memory, 53300 too_many_connections
	FaultIO          Fault = "io"          // 58030 io_error, 58000 system_error
	FaultCorrupt     Fault = "corrupt"     // XX001 data_corrupted, XX002 index_corrupted
	FaultReadOnly    Fault = "readonly"    // 25006 read_only_sql_transaction (a standby, or default_transaction_read_only)
	FaultUnreachable Fault = "unreachable" // the connection failed or was lost; class 08, 57P01-03 shutdown
)

// FaultOf classifies err; FaultNone for an error of a query (a constraint,
// a syntax error, a serialization failure to retry).
func FaultOf(err error) Fault {
	if err == nil {
		return FaultNone
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch code := pg.Code; {
		case code == "53100" || code == "53200" || code == "53300":
			return FaultFull
		case code == "58030" || code == "58000":
			return FaultIO
		case code == "XX001" || code == "XX002":
			return FaultCorrupt
		case code == "25006":
			return FaultReadOnly
		case len(code) == 5 && code[:2] == "08" || code == "57P01" || code == "57P02" || code == "57P03":
			return FaultUnreachable
		}
		return FaultNone
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connect) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) {
		return FaultUnreachable
	}
	return FaultNone
}
