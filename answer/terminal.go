package answer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Terminal makes text safe to print to a terminal: every control
// character but the newline and the tab (C0, DEL, C1), and every byte that
// is not UTF-8, is written as a Go escape (\x1b, \r, \u009b, \xff), so a
// stored turn holding ESC or OSC sequences (ESC[2J clears the screen, OSC 52
// writes the clipboard) is shown, not run. The CLI's text answers go
// through it; --json needs none (JSON escapes them) and the stored text is
// never changed.
func Terminal(text string) string {
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c) {
				break
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && w == 1 || r >= 0x80 && r <= 0x9f {
			break
		}
		i += w
	}
	if i == len(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	b.WriteString(text[:i])
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c) {
				b.WriteString(escape(rune(c)))
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(c)|0x100, 16)[1:])
		case r >= 0x80 && r <= 0x9f:
			b.WriteString(escape(r))
		default:
			b.WriteString(text[i : i+w])
		}
		i += w
	}
	return b.String()
}

// unsafeByte reports whether an ASCII byte is a control character a
// terminal acts on: all but the newline and the tab.
func unsafeByte(c byte) bool { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f }

// escape is a control character as Go quotes it, without the quotes.
func escape(r rune) string {
	q := strconv.QuoteRune(r)
	return q[1 : len(q)-1]
}
