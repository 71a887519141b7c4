//go:build !unix

package mcpprocess

import "os"

var interrupt = os.Kill
