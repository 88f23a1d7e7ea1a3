package connectors

// SetAfterWalk sets the hook that runs between a sync's walk and its
// reads, and returns a function that takes it away.
func SetAfterWalk(f func()) func() {
	afterWalk = f
	return func() { afterWalk = nil }
}

// SetWalkBounds sets the walk's folder and depth bounds and the
// .gitignore bounds, and returns a function that puts them back.
func SetWalkBounds(folders, depth, ignoreRules int) func() {
	f, d, r := maxFolders, maxDepth, maxIgnoreRules
	maxFolders, maxDepth, maxIgnoreRules = folders, depth, ignoreRules
	return func() { maxFolders, maxDepth, maxIgnoreRules = f, d, r }
}
