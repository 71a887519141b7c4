package gui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/adrg/xdg"

	"github.com/ireneo-app/ireneo/funes"
)

// Autostart starts Ireneo at login: an XDG autostart .desktop entry on Linux
// and the BSDs, a LaunchAgent on macOS. Fyne offers nothing for this, so it
// is a file Ireneo writes and removes. (Windows has no file-based per-user
// equivalent that starts a GUI app silently; there the setting explains
// how to add a shortcut to the Startup folder.)
type Autostart struct {
	// Dir is where the entry goes; "" means the platform's per-user place.
	Dir string
	// Exec is the program to start; "" means this executable.
	Exec string
	// GOOS picks the entry's kind; "" means runtime.GOOS (tests set it).
	GOOS string
}

const autostartID = "app.ireneo.Ireneo"

func (a Autostart) goos() string {
	if a.GOOS != "" {
		return a.GOOS
	}
	return runtime.GOOS
}

// Supported says whether this platform has an autostart Ireneo can write.
func (a Autostart) Supported() bool { return a.goos() != "windows" }

// Path is the autostart entry's file.
func (a Autostart) Path() string {
	dir := a.Dir
	switch a.goos() {
	case "darwin":
		if dir == "" {
			home, _ := os.UserHomeDir()
			dir = filepath.Join(home, "Library", "LaunchAgents")
		}
		return filepath.Join(dir, autostartID+".plist")
	default:
		if dir == "" {
			dir = filepath.Join(xdg.ConfigHome, "autostart") // Main passes the configured one
		}
		return filepath.Join(dir, autostartID+".desktop")
	}
}

// Enabled says whether the entry exists.
func (a Autostart) Enabled() bool {
	_, err := os.Stat(a.Path())
	return err == nil
}

// Set writes or removes the entry.
func (a Autostart) Set(on bool) error {
	if !a.Supported() {
		return errors.New("starting at login is not automatic on Windows yet: press Win+R, type shell:startup, and put a shortcut to Ireneo in that folder")
	}
	p := a.Path()
	if !on {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", p, err)
		}
		return nil
	}
	exe := a.Exec
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("find this program's path: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	var data string
	if a.goos() == "darwin" {
		data = launchAgent(exe)
	} else {
		data = desktopEntry(exe)
	}
	if err := funes.WriteFileAtomic(p, []byte(data), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// desktopEntry is an XDG autostart entry that starts the tray app.
func desktopEntry(exe string) string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=Ireneo\n" +
		"Comment=A local, verbatim, searchable memory of your AI conversations\n" +
		"Exec=env " + EnvStartHidden + "=1 " + desktopExec(exe) + "\n" +
		"Icon=" + autostartID + "\n" +
		"Terminal=false\n" +
		"Categories=Utility;\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// desktopExec quotes a path for a .desktop Exec key: inside double quotes,
// backslash, double quote, backtick and dollar are escaped, and a literal
// percent is doubled.
func desktopExec(exe string) string {
	if !strings.ContainsAny(exe, " \t\n\"'\\><~|&;$*?#()`%") {
		return exe
	}
	r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", `$`, `\\$`, `%`, `%%`)
	return `"` + r.Replace(exe) + `"`
}

// launchAgent is a macOS LaunchAgent that starts the app at login.
func launchAgent(exe string) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + autostartID + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + esc.Replace(exe) + `</string>
	</array>
	<key>EnvironmentVariables</key>
	<dict>
		<key>` + EnvStartHidden + `</key>
		<string>1</string>
	</dict>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`
}
