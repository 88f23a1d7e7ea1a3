// Package auth holds the pieces of authentication that need no HTTP: the
// modes, roles and their permissions, signed tokens (sign, verify, claims,
// project scope) and the secret file they are signed with.
package auth
