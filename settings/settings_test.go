package settings

import (
	"os"
	"testing"
)

func TestLoadSaveDefaults(t *testing.T) {
	t.Setenv("IRENEO_CONFIG", t.TempDir())
	s, err := Load()
	if err != nil || s.ServerAddr != DefaultAddr || !s.ScrubOnImport || !s.ServerAutostart {
		t.Fatalf("defaults: %v %+v", err, s)
	}
	s.ScrubOnImport = false
	s.UserPatterns = []Pattern{{Name: "host", Regex: `corp\.internal`}}
	if err := Save(s); err != nil {
		t.Fatal(err)
	}
	got, err := Load()
	if err != nil || got.ScrubOnImport || len(got.UserPatterns) != 1 {
		t.Fatalf("reload: %v %+v", err, got)
	}
	os.WriteFile(Path(), []byte("{not json"), 0o600)
	if _, err := Load(); err == nil {
		t.Fatal("a broken settings file must be an error naming it")
	}
}
