// Package jsonedit edits a user's JSON settings file the way a person
// would: one key changed, every other key, its order and its formatting
// left as written, the old file kept as a backup and the new one written
// atomically. The harness installers (core/harness/claudecode, and the
// next agents beside it) use it on files cairn does not own.
//
// It imports nothing of cairn.
package jsonedit
