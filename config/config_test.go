package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ireneo-app/ireneo/settings"
)

func TestLoadFromEnvironment(t *testing.T) {
	root := t.TempDir()
	t.Setenv(EnvHome, filepath.Join(root, "mem"))
	t.Setenv(EnvConfig, filepath.Join(root, "conf"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	t.Setenv(EnvStartHidden, "1")
	t.Setenv("CODEX_HOME", filepath.Join(root, "codex"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(root, "claude"))
	s := settings.Default()
	s.DefaultK = 5
	if err := settings.SaveTo(filepath.Join(root, "conf"), s); err != nil {
		t.Fatal(err)
	}
	c := Load()
	if c.MemoryDir != filepath.Join(root, "mem") || c.Dir != filepath.Join(root, "conf") || !c.StartHidden ||
		c.AutostartDir != filepath.Join(root, "xdg", "autostart") || c.Version != Version {
		t.Errorf("config = %+v", c)
	}
	if c.CodexHome != filepath.Join(root, "codex") || c.ClaudeConfigDir != filepath.Join(root, "claude") {
		t.Errorf("tool homes: %q, %q", c.CodexHome, c.ClaudeConfigDir)
	}
	if c.SettingsErr != nil || c.Settings.DefaultK != 5 {
		t.Errorf("settings from $%s: %+v, %v", EnvConfig, c.Settings, c.SettingsErr)
	}
	if c.TokenFile() != filepath.Join(root, "conf", TokenFileName) {
		t.Errorf("token file %s is not in $%s", c.TokenFile(), EnvConfig)
	}

	// Without IRENEO_CONFIG, the settings folder is under XDG_CONFIG_HOME.
	t.Setenv(EnvConfig, "")
	t.Setenv(EnvStartHidden, "")
	c = Load()
	if c.Dir != filepath.Join(root, "xdg", "ireneo") || c.StartHidden || c.Settings.DefaultK != settings.Default().DefaultK {
		t.Errorf("config = %+v", c)
	}
}

func TestLoadKeepsGoingOnBrokenSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvConfig, dir)
	os.WriteFile(filepath.Join(dir, "settings.json"), []byte("{"), 0o600)
	c := Load()
	if c.SettingsErr == nil || c.Settings.ServerAddr != settings.DefaultAddr {
		t.Errorf("broken settings: %v, %+v; want the error and the defaults", c.SettingsErr, c.Settings)
	}
}
