// Package config builds Ireneo's one configuration: where the memory and the
// settings live, the person's settings, and the version. main builds it once
// (environment, then settings.json; the CLI's flags go on top) and passes it
// down; no other package reads Ireneo's environment variables or settings.
package config

import (
	"os"
	"path/filepath"

	"github.com/adrg/xdg"

	"github.com/ireneo-app/ireneo/settings"
)

// Environment variables Ireneo reads, here only.
const (
	// EnvHome points at the memory directory.
	EnvHome = "IRENEO_HOME"
	// EnvConfig points at the settings folder (settings.json, and the file
	// token store's secrets when there is no keyring).
	EnvConfig = "IRENEO_CONFIG"
	// EnvStartHidden, set to 1 (as the login entry does), starts the tray
	// app without opening its window.
	EnvStartHidden = "IRENEO_START_HIDDEN"
)

// Version is the app's version; set at build time with
// -ldflags "-X github.com/ireneo-app/ireneo/config.Version=…".
var Version = "0.1.0"

// TokenFileName is the file token store's file inside the config folder.
const TokenFileName = "token-secrets.json"

// Config is everything a run of Ireneo is configured by.
type Config struct {
	// Version is the app's version (the variable Version), reported by
	// --version, in About and to MCP clients.
	Version string
	// MemoryDir is the memory directory: --memory, else $IRENEO_HOME, else
	// $XDG_DATA_HOME/ireneo.
	MemoryDir string
	// Dir is the settings folder: $IRENEO_CONFIG, else
	// $XDG_CONFIG_HOME/ireneo.
	Dir string
	// AutostartDir is where the desktop's login entries go
	// ($XDG_CONFIG_HOME/autostart on Linux).
	AutostartDir string
	// Settings are the person's settings from Dir/settings.json, or the
	// defaults when there is no file or it cannot be read.
	Settings settings.Settings
	// SettingsErr says why settings.json could not be read; what depends on
	// the person's settings (scrub patterns) stops on it, the rest goes on
	// with the defaults.
	SettingsErr error
	// StartHidden starts the tray app without its window.
	StartHidden bool
	// CodexHome and ClaudeConfigDir are $CODEX_HOME and $CLAUDE_CONFIG_DIR:
	// where Codex and Claude Code keep their sessions and configuration
	// when told to ("" means their defaults under the home folder).
	CodexHome, ClaudeConfigDir string
}

// Load builds the configuration from the environment and the settings file.
func Load() Config {
	c := Config{Version: Version, MemoryDir: os.Getenv(EnvHome), Dir: os.Getenv(EnvConfig)}
	if c.MemoryDir == "" {
		c.MemoryDir = filepath.Join(xdg.DataHome, "ireneo")
	}
	configHome := xdg.ConfigHome
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		configHome = d // read now, not at xdg's init, so tests can move it
	}
	if c.Dir == "" {
		c.Dir = filepath.Join(configHome, "ireneo")
	}
	c.AutostartDir = filepath.Join(configHome, "autostart")
	c.StartHidden = os.Getenv(EnvStartHidden) == "1"
	c.CodexHome, c.ClaudeConfigDir = os.Getenv("CODEX_HOME"), os.Getenv("CLAUDE_CONFIG_DIR")
	c.Settings, c.SettingsErr = settings.LoadFrom(c.Dir)
	return c
}

// SettingsPath is the settings file.
func (c Config) SettingsPath() string { return settings.PathIn(c.Dir) }

// TokenFile is where the file token store keeps secrets.
func (c Config) TokenFile() string { return filepath.Join(c.Dir, TokenFileName) }

// SaveSettings writes s to the settings file.
func (c Config) SaveSettings(s settings.Settings) error { return settings.SaveTo(c.Dir, s) }
