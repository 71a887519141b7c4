package gui

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"
)

// Bold Chinese, Japanese and Korean. Fyne draws a glyph its theme font
// lacks from a system font that has it, but always in that font's regular
// weight, so CJK text lost its bold (titles, **strong** words, headings).
// The app's theme keeps a bold CJK face of the system's, when it has one,
// under a text style Fyne never asks for itself (bold and symbol), and the
// screens ask for that style for bold text with CJK in it (boldStyle).
// Without such a font, bold CJK stays regular, as before.

// appTheme is Fyne's theme with a bold CJK face.
type appTheme struct {
	fyne.Theme
}

func (t appTheme) Font(s fyne.TextStyle) fyne.Resource {
	if s.Bold && s.Symbol {
		if r := cjkBoldFont(); r != nil {
			return r
		}
		s.Symbol = false
	}
	return t.Theme.Font(s)
}

var (
	cjkBoldOnce sync.Once
	cjkBoldRes  fyne.Resource
)

// loadCJKBold finds the system's bold CJK face, off the UI goroutine: a
// scan of the system fonts the first time (its index is cached).
func loadCJKBold() {
	cjkBoldOnce.Do(func() {
		data, err := findCJKBold()
		if err != nil || data == nil {
			return
		}
		cjkBoldRes = fyne.NewStaticResource("cjk-bold.ttf", data)
	})
}

// cjkBoldFont is the bold CJK face once loadCJKBold found one, else nil.
func cjkBoldFont() fyne.Resource {
	return cjkBoldRes
}

// findCJKBold is a system font file's bold face that draws Han, as one
// TrueType/OpenType font (a face out of a collection), or nil.
func findCJKBold() ([]byte, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	fm := fontscan.NewFontMap(nil)
	if err := fm.UseSystemFonts(filepath.Join(cache, "ireneo", "fonts")); err != nil {
		return nil, err
	}
	fm.SetQuery(fontscan.Query{Families: []string{fontscan.SansSerif}, Aspect: font.Aspect{Weight: font.WeightBold}})
	face := fm.ResolveFace('你')
	if face == nil {
		return nil, nil
	}
	if _, aspect := fm.FontMetadata(face.Font); aspect.Weight < font.WeightSemibold {
		return nil, nil // only a regular face: Fyne's own fallback draws it
	}
	loc := fm.FontLocation(face.Font)
	data, err := os.ReadFile(loc.File)
	if err != nil {
		return nil, err
	}
	return oneFace(data, int(loc.Index))
}

// oneFace is face i of a font collection (.ttc) as a font of its own, or
// the font itself: Fyne reads single fonts only.
func oneFace(data []byte, i int) ([]byte, error) {
	if len(data) < 12 || string(data[:4]) != "ttcf" {
		return data, nil
	}
	be := binary.BigEndian
	n := int(be.Uint32(data[8:]))
	if i < 0 || i >= n || len(data) < 12+4*n {
		return nil, errors.New("font collection: no such face")
	}
	off := int(be.Uint32(data[12+4*i:]))
	if off+12 > len(data) {
		return nil, errors.New("font collection: bad offset")
	}
	tables := int(be.Uint16(data[off+4:]))
	dir := off + 12
	if dir+16*tables > len(data) {
		return nil, errors.New("font collection: bad table directory")
	}
	head := 12 + 16*tables
	out := make([]byte, head, len(data))
	copy(out, data[off:off+12])
	for k := range tables {
		rec := data[dir+16*k : dir+16*k+16]
		start, length := int(be.Uint32(rec[8:])), int(be.Uint32(rec[12:]))
		if start < 0 || start+length > len(data) {
			return nil, errors.New("font collection: table out of bounds")
		}
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		copy(out[12+16*k:], rec[:8]) // tag, checksum
		be.PutUint32(out[12+16*k+8:], uint32(len(out)))
		be.PutUint32(out[12+16*k+12:], uint32(length))
		out = append(out, data[start:start+length]...)
	}
	return out, nil
}

// hasCJK reports Han, kana or Hangul in s.
func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// boldStyle is the bold text style for s: with the bold CJK face when s
// holds CJK and the system has one.
func boldStyle(s string) fyne.TextStyle {
	st := fyne.TextStyle{Bold: true}
	if cjkBoldFont() != nil && hasCJK(s) {
		st.Symbol = true
	}
	return st
}

// setBoldText sets a bold label's text, in the style its text needs.
func setBoldText(l *widget.Label, text string) {
	l.TextStyle = boldStyle(text)
	l.SetText(text)
}

var _ fyne.Theme = appTheme{theme.DefaultTheme()}
