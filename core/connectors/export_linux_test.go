package connectors

// WithoutOpenat2 makes files open one component at a time, as on a
// kernel without openat2, until the returned function is called.
func WithoutOpenat2() func() {
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	return func() { noOpenat2.Store(was) }
}
