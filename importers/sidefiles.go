package importers

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// maxSideFile caps a small file read beside a session (Copilot CLI's
// workspace.yaml, Gemini CLI's .project_root): they hold a few lines.
const maxSideFile = 64 << 10

// readSideFile reads a small file a session keeps beside it. A missing
// file is ("", nil); one too large, unreadable or not UTF-8 is an error
// naming it, so a session is never stored with metadata half-read.
func readSideFile(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, unwrapPathErr(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSideFile+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxSideFile {
		return "", fmt.Errorf("%s: larger than %d KiB, not the small file it should be", path, maxSideFile>>10)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: not UTF-8 text", path)
	}
	return string(b), nil
}
