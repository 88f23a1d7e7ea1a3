package core_test

import "os"

func mkTemp() (string, error) { return os.MkdirTemp("", "cairn-bench-") }
