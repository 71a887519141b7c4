//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/tokenstore/keyringtest"
)

// TestServeLockedKeyring: a token made while the real keyring was unlocked
// is served after it is locked; making a token then says, once and in
// plain words, what is wrong and what still works, without waiting on an
// unlock prompt.
func TestServeLockedKeyring(t *testing.T) {
	if os.Getenv("IRENEO_TEST_KEYRING") == "" {
		t.Skip("IRENEO_TEST_KEYRING is not set; `make test` runs this against a real keyring")
	}
	if !keyringtest.PrivateSession(t) {
		return
	}
	_, mem := mcpEnv(t)
	seedMemory(t, mem)
	m := "--memory=" + mem
	code, out, errs := ireneo(t, m, "token", "create", "early", "--json")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created struct{ Secret string }
	json.Unmarshal([]byte(out), &created)
	t.Cleanup(func() { ireneo(t, m, "token", "revoke", "early") })

	if err := keyringtest.Lock(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := keyringtest.Unlock(); err != nil {
			t.Error(err)
		}
	})
	url := startServe(t, m)
	if got := recallText(t, mcpClient(t, url, created.Secret), "MT-4471"); !strings.Contains(got, "MARKALPHA") {
		t.Fatalf("recall through serve on a locked keyring:\n%s", got)
	}
	code, _, errs = ireneo(t, m, "token", "create", "late")
	if code != ExitError || !strings.Contains(errs, "token create needs the OS keyring, but the keyring is locked") ||
		!strings.Contains(errs, "tokens made earlier keep working") || strings.Count(errs, "locked") > 3 {
		t.Fatalf("token create on a locked keyring: %d\n%s", code, errs)
	}
	if _, out, _ := ireneo(t, m, "token", "list"); strings.Contains(out, "late") {
		t.Fatalf("a token was recorded anyway:\n%s", out)
	}
}
