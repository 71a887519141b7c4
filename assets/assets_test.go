package assets

import (
	"bytes"
	"image/png"
	"testing"
)

// The tray needs PNG bytes on Linux, and fyne package wants a square icon of
// at least 256 px.
func TestIcons(t *testing.T) {
	for name, c := range map[string]struct {
		data []byte
		size int
	}{"icon.png": {IconPNG, 256}, "tray.png": {TrayPNG, 64}} {
		img, err := png.Decode(bytes.NewReader(c.data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != c.size || b.Dy() != c.size {
			t.Fatalf("%s is %v, want %d px square", name, b, c.size)
		}
	}
	if !bytes.Contains(StarSVG, []byte("<svg")) {
		t.Fatal("star.svg is not an SVG")
	}
}
