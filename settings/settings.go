// Package settings owns Ireneo's settings file, settings.json in
// $XDG_CONFIG_HOME/ireneo: the person's preferences for the server, recall,
// scrub and watching. Secrets never go here; token secrets live in the OS
// keyring.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// DefaultAddr is the MCP server's default loopback address. The port is
// uncommon on purpose, so it rarely collides with a developer's own servers.
const DefaultAddr = "127.0.0.1:47119"

// Pattern is a user-defined secret pattern: a named regular expression.
type Pattern struct {
	Name  string `json:"name"`
	Regex string `json:"regex"`
}

// Settings are the person's preferences.
type Settings struct {
	ServerAddr      string    `json:"server_addr"`
	ServerAutostart bool      `json:"server_autostart"`
	DefaultK        int       `json:"default_top_k"`
	DefaultBudget   int       `json:"default_token_budget"`
	ScrubOnImport   bool      `json:"scrub_on_import"`
	UserPatterns    []Pattern `json:"user_patterns"`
	WatchEnabled    bool      `json:"watch_enabled"`
	WatchFolders    []string  `json:"watch_folders"`
	StartAtLogin    bool      `json:"start_at_login"`
	WindowWidth     float32   `json:"window_width"`
	WindowHeight    float32   `json:"window_height"`
	// TokenStore is where token secrets are kept: "" (the OS keyring) or
	// "file" (a 0600 file), chosen in the app when the keyring cannot be used.
	TokenStore string `json:"token_store,omitempty"`
}

// TokenStoreFile is the TokenStore value for the 0600 file.
const TokenStoreFile = "file"

// Default is what a new install starts with.
func Default() Settings {
	return Settings{
		ServerAddr:      DefaultAddr,
		ServerAutostart: true,
		DefaultK:        8,
		DefaultBudget:   2000,
		ScrubOnImport:   true,
		WindowWidth:     1100,
		WindowHeight:    720,
	}
}

// ConfigDir is the folder of Ireneo's settings: $IRENEO_CONFIG if set, else
// $XDG_CONFIG_HOME/ireneo (read at each call, so tests can point it away).
// The app takes it from its config; Load and Save are for tests and tools.
func ConfigDir() string {
	if d := os.Getenv("IRENEO_CONFIG"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "ireneo")
	}
	return filepath.Join(xdg.ConfigHome, "ireneo")
}

// Path is the settings file in ConfigDir.
func Path() string { return PathIn(ConfigDir()) }

// PathIn is the settings file in the folder dir.
func PathIn(dir string) string { return filepath.Join(dir, "settings.json") }

// Load reads the settings from ConfigDir.
func Load() (Settings, error) { return LoadFrom(ConfigDir()) }

// Save writes the settings to ConfigDir.
func Save(s Settings) error { return SaveTo(ConfigDir(), s) }

// LoadFrom reads the settings in the folder dir; a missing file gives the
// defaults, and fields the file lacks keep their defaults.
func LoadFrom(dir string) (Settings, error) {
	s := Default()
	path := PathIn(dir)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("settings %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Default(), fmt.Errorf("settings %s: %w (fix or delete the file to start from defaults)", path, err)
	}
	return s, nil
}

// SaveTo writes the settings in the folder dir atomically, readable by the
// owner only.
func SaveTo(dir string, s Settings) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".settings-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), PathIn(dir))
}
