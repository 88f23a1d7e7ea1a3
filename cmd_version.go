package main

import (
	"context"
	"fmt"
)

// runVersionCmd is `cairn version`.
func runVersionCmd(ctx context.Context, args []string) error {
	fmt.Printf("cairn %s\n", cairnVersion())
	return nil
}
