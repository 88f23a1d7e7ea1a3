// Package admission bounds the requests the API serves at once
// (server.max_concurrent, server.queue_timeout): reads and writes take
// turns of their own, an admitted read runs in one of a slot per CPU, a
// request that finds no turn in time is refused at once (the API answers
// 503 with Retry-After) instead of queueing for seconds; and SpareProc
// gives the Go scheduler one P more than the CPUs so that a new request is
// seen the moment it arrives.
//
// admission imports only core/config; core/httpapi is its one user.
package admission
