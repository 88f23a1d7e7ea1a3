// Package completion writes cairn's shell completion scripts (bash, zsh,
// fish) from a Spec: the commands, their flags, the flags' fixed values and
// which take a path. main builds the Spec from the commands' own flag sets
// (cairn completion), so a script never offers a flag a command does not
// take. It imports nothing of cairn.
package completion
