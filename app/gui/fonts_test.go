package gui

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/go-text/typesetting/font"
)

// glyphImage renders text in the app's theme and returns the picture.
func glyphImage(t *testing.T, w fyne.Window, text string, style fyne.TextStyle) image.Image {
	t.Helper()
	c := canvas.NewText(text, color.Black)
	c.TextSize = 32
	c.TextStyle = style
	w.SetContent(c)
	w.Resize(fyne.NewSize(160, 60))
	return w.Canvas().Capture()
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				return false
			}
		}
	}
	return true
}

// TestCJKRenders: Chinese, Japanese and Korean text renders as glyphs,
// not as the empty box of a missing glyph, in plain and bold text. Fyne
// takes a glyph its theme font lacks from a system font that has it; the
// test machine has one (scripts/deps.sh installs fonts-wqy-microhei), as
// macOS, Windows and Linux desktops set up for these languages do. A
// missing-glyph box looks the same whatever the character, so two
// different characters rendering alike, or like a private-use code
// point no font draws, means boxes.
func TestCJKRenders(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	w := a.NewWindow("")
	for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
		box := glyphImage(t, w, "\uE000", style)
		for _, pair := range [][2]string{{"你", "好"}, {"日", "本"}, {"한", "국"}, {"カ", "ナ"}} {
			one, two := glyphImage(t, w, pair[0], style), glyphImage(t, w, pair[1], style)
			if sameImage(one, two) || sameImage(one, box) {
				t.Errorf("%q and %q (bold %v) render as missing-glyph boxes: install a CJK font (fonts-wqy-microhei or fonts-noto-cjk)", pair[0], pair[1], style.Bold)
			}
		}
	}
	// And in a label, as titles and transcripts show them.
	l := widget.NewLabel("会议记录：数据库迁移")
	w.SetContent(l)
	if l.MinSize().Width < 100 {
		t.Errorf("a CJK label is %v wide", l.MinSize().Width)
	}
}

// TestCJKBold: bold CJK is drawn bold, with the system's bold CJK face
// (Fyne's own fallback draws every fallback glyph regular): the app's
// theme gives that face for the style boldStyle asks for CJK text, and
// the glyphs differ from the regular ones. A face taken out of a font
// collection is a font of its own.
func TestCJKBold(t *testing.T) {
	loadCJKBold()
	if cjkBoldFont() == nil {
		t.Skip("no bold CJK font on this machine (scripts/deps.sh installs fonts-noto-cjk)")
	}
	if _, err := font.ParseTTF(bytes.NewReader(cjkBoldFont().Content())); err != nil {
		t.Fatalf("the bold CJK face does not parse as a font: %v", err)
	}
	if st := boldStyle("東京の旅行計画"); !st.Bold || !st.Symbol {
		t.Fatalf("boldStyle of CJK text is %+v", st)
	}
	if st := boldStyle("Deploy script fails"); st.Symbol {
		t.Fatal("boldStyle of Latin text asks for the CJK face")
	}
	a := test.NewTempApp(t)
	a.Settings().SetTheme(appTheme{theme.DefaultTheme()})
	w := a.NewWindow("")
	for _, s := range []string{"你好", "東京", "한국"} {
		regular := glyphImage(t, w, s, fyne.TextStyle{})
		fallbackBold := glyphImage(t, w, s, fyne.TextStyle{Bold: true})
		bold := glyphImage(t, w, s, boldStyle(s))
		if sameImage(bold, regular) {
			t.Errorf("%q in the app's bold looks regular", s)
		}
		if !sameImage(fallbackBold, regular) {
			t.Logf("%q: Fyne's fallback draws bold CJK bold here", s)
		}
	}
	// In a Markdown **strong** word, and in a bold title.
	segs := parseMarkdownPieces("**一日目**：浅草")[0].segs
	if ts, ok := segs[0].(*widget.TextSegment); !ok || !ts.Style.TextStyle.Symbol || ts.Text != "一日目" {
		t.Errorf("**一日目** renders as %#v", segs[0])
	}
}
