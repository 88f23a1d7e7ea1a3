package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairnmem/cairn/core/auth"
)

// runToken signs API tokens with the secret in the data folder, so it works
// whether or not cairn is running: cairn token create --role R [--project P].
func runToken(ctx context.Context, args []string) error {
	fs, common := newFlagSet("token", "token create --role ROLE [--project P] [--agent A] [--user U] [--ttl 24h]")
	role := fs.String("role", "", "role: "+strings.Join(auth.Roles, ", "))
	project := fs.String("project", "", "limit the token to one project")
	agent := fs.String("agent", "", "limit the token to one agent")
	user := fs.String("user", "", "limit the token to one user")
	ttl := fs.Duration("ttl", 0, "lifetime (default auth.token_ttl, 168h)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "create" {
		return usageError{"usage: cairn token create --role ROLE [--project P] [--ttl 24h]"}
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
	tok, err := auth.SignToken(secret, auth.NewClaims(*role, auth.TokenScope{Project: *project, Agent: *agent, User: *user}, life, time.Now()))
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}
