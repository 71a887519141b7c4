// Package assets holds Ireneo's icons, embedded in the binary. They are drawn
// by gen_icons.go (`go run ./assets/gen_icons.go` rewrites them), so the
// artwork is reproducible from source.
package assets

import _ "embed"

// IconPNG is the 256 px app icon (also referenced by FyneApp.toml).
//
//go:embed icon.png
var IconPNG []byte

// TrayPNG is the 64 px tray icon. Linux trays need PNG bytes; SVG shows
// nothing there.
//
//go:embed tray.png
var TrayPNG []byte

// StarSVG is the star that marks important conversations; the GUI tints it
// with the theme's colours.
//
//go:embed star.svg
var StarSVG []byte
