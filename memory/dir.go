package memory

import (
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// EnvHome names the environment variable that points at a memory directory.
const EnvHome = "IRENEO_HOME"

// ResolveDir picks the memory directory: the flag if given, else
// $IRENEO_HOME, else xdg.DataHome/ireneo.
func ResolveDir(flag string) string {
	if flag != "" {
		return flag
	}
	if env := os.Getenv(EnvHome); env != "" {
		return env
	}
	return filepath.Join(xdg.DataHome, "ireneo")
}
