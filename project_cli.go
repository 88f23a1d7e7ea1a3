package main

// cliProject is the project a command uses: the --project flag as given.
// It is the one place the CLI's default project is decided.
func cliProject(flagValue string) string { return flagValue }
