package main

import (
	"context"
	"strings"

	"github.com/cairnmem/cairn/core"
)

// cliProject is the project a command uses: the --project flag resolved
// as hooks resolve theirs (a name or alias → its repository root, a folder
// → its project), and with no flag the current project: the repository
// holding the working directory, or the folder itself outside one. It is
// the one place the CLI's default project is decided.
func cliProject(ctx context.Context, common *commonFlags, flagValue string) (string, error) {
	a, err := loadApp(common)
	if err != nil {
		return "", err
	}
	defer a.close()
	return a.localProject(ctx, flagValue)
}

// cliProjectGiven resolves --project only when it was given: commands
// that search every project unless told otherwise (recall) use it.
func cliProjectGiven(ctx context.Context, common *commonFlags, flagValue string) (string, error) {
	if flagValue == "" {
		return "", nil
	}
	return cliProject(ctx, common, flagValue)
}

// checkCLIType refuses a --type outside the types a person may pick: the
// built-in ones and the configured memory.extra_types.
func checkCLIType(common *commonFlags, typ string) error {
	if strings.TrimSpace(typ) == "" {
		return nil
	}
	a, err := loadApp(common)
	if err != nil {
		return err
	}
	defer a.close()
	if err := core.CheckType("type", typ, core.Types(a.cfg.Memory.ExtraTypes)); err != nil {
		return usageError{"--type: " + err.Error()}
	}
	return nil
}
