package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/auth"
)

// runToken signs API tokens with the secret in the data folder, and
// revokes them in the list beside it, so it works whether or not cairn is
// running: cairn token create --role R [--project P], cairn token revoke ID.
func runToken(ctx context.Context, args []string) error {
	fs, common := newFlagSet("token", "token create --role ROLE [--project P] [--agent A] [--user U] [--ttl 24h] | token revoke ID")
	role := fs.String("role", "", "role: "+strings.Join(auth.Roles, ", "))
	project := fs.String("project", "", "limit the token to one project")
	agent := fs.String("agent", "", "limit the token to one agent")
	user := fs.String("user", "", "limit the token to one user")
	ttl := fs.Duration("ttl", 0, "lifetime (auth.token_ttl)")
	asJSON := fs.Bool("json", false, "print the token (or the revocation) as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 2 && pos[0] == "revoke" {
		return revokeToken(common, pos[1], *asJSON)
	}
	if len(pos) != 1 || pos[0] != "create" {
		return usageError{"usage: cairn token create --role ROLE [--project P] [--ttl 24h], or cairn token revoke ID"}
	}
	if !auth.ValidRole(*role) {
		return usageError{"--role must be one of " + strings.Join(auth.Roles, ", ")}
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	life := time.Duration(a.cfg.Auth.TokenTTL)
	if *ttl != 0 {
		life = *ttl
	}
	if life <= 0 {
		return usageError{"--ttl must be positive"}
	}
	secret, err := auth.LoadOrCreateSecret(auth.SecretPath(a.cfg.Auth, a.paths.DataDir))
	if err != nil {
		return err
	}
	claims := auth.NewClaims(*role, auth.TokenScope{Project: *project, Agent: *agent, User: *user}, life, time.Now())
	tok, err := auth.SignToken(secret, claims)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(os.Stdout, map[string]any{"token": tok, "id": claims.ID, "role": *role, "scope": claims.Scope, "expires": time.Unix(claims.Exp, 0).UTC()})
	}
	fmt.Println(tok)
	fmt.Fprintf(os.Stderr, "token id %s (cairn token revoke %s revokes it)\n", claims.ID, claims.ID)
	return nil
}

// revokeToken is cairn token revoke ID: the token (by its id, or the
// token itself) is refused from its next request on.
func revokeToken(common *commonFlags, arg string, asJSON bool) error {
	id, err := auth.TokenID(arg)
	if err != nil {
		return usageError{err.Error()}
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	added, err := auth.Revoke(auth.RevokedPath(a.cfg.Auth, a.paths.DataDir), id, time.Now())
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(os.Stdout, map[string]any{"id": id, "revoked": true, "already": !added})
	}
	if !added {
		fmt.Printf("token %s was already revoked\n", id)
		return nil
	}
	fmt.Printf("revoked token %s: it is refused from its next request on\n", id)
	return nil
}
