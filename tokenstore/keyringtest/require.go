package keyringtest

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// Require skips unless the run provides a real, unlocked keyring
// (make test sets IRENEO_TEST_KEYRING=1 inside dbus-run-session with
// gnome-keyring). When it is set, a broken keyring fails the test.
func Require(t *testing.T) {
	t.Helper()
	if os.Getenv("IRENEO_TEST_KEYRING") == "" {
		t.Skip("IRENEO_TEST_KEYRING is not set; `make test` runs this against a real keyring")
	}
}

// UniqueName makes a token name no earlier run has used.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
}
