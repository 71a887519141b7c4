package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envRunMain makes the test binary run main instead of the tests, so a test
// can start Ireneo as a process, with package initialisation and all.
const envRunMain = "IRENEO_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestNoFyneNoiseInAnyLocale: a command that opens no window prints nothing
// on stderr, whatever the locale; Fyne looks the locale up at package init
// and used to log "Error parsing user locale C" for LANG=C.UTF-8.
func TestNoFyneNoiseInAnyLocale(t *testing.T) {
	t.Parallel()
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") {
			continue
		}
		base = append(base, kv)
	}
	dir := t.TempDir()
	for _, locale := range [][]string{
		{"LANG=C.UTF-8"}, {"LANG=C"}, {}, {"LANG=POSIX"}, {"LC_ALL=C.UTF-8", "LANG=en_US.UTF-8"},
		{"LANG=C.utf8"}, {"LANG=en_US.UTF-8"}, {"LANG=de_DE.UTF-8"},
	} {
		cmd := exec.Command(os.Args[0], "--memory", dir, "status")
		cmd.Env = append(append([]string{envRunMain + "=1"}, base...), locale...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%v ireneo status: %v\n%s", locale, err, stderr.String())
			continue
		}
		if stderr.Len() > 0 {
			t.Errorf("%v ireneo status printed on stderr:\n%s", locale, stderr.String())
		}
		if !strings.Contains(stdout.String(), "conversations:") {
			t.Errorf("%v ireneo status printed no status:\n%s", locale, stdout.String())
		}
	}
}
