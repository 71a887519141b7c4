package gui

import (
	"net/url"
	"regexp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Markdown in a transcript, as rich text: prose flows and wraps, code is
// monospaced, and a fenced block sits on its own tinted panel. Fyne's own
// ParseMarkdown joins a message's single line breaks into one line; chat
// text means them as breaks, so this renderer keeps them. Raw HTML stays
// as typed: a quoted <system-reminder> is text, not markup.

// mdPiece is a run of prose segments, one fenced code block, or a table.
type mdPiece struct {
	segs   []widget.RichTextSegment
	code   string
	isCode bool
	table  *mdTable
}

// mdTable is a Markdown table: its header row and body rows, each cell
// as inline segments.
type mdTable struct {
	header [][]widget.RichTextSegment
	rows   [][][]widget.RichTextSegment
}

// Tables are GitHub's, as assistants write them.
var markdownParser = goldmark.New(goldmark.WithExtensions(extension.Table))

// artifactTag is a Claude.ai artifact as its exports keep it in the
// message's text: <antArtifact identifier=… title=…>code</antArtifact>.
var artifactTag = regexp.MustCompile(`(?s)(<antArtifact\b[^>]*>)\n?(.*?)\n?(</antArtifact>)`)

// parseMarkdownPieces turns Markdown into pieces in reading order. A
// Claude.ai artifact's body is code (a React component, a script) written
// with no fence: it shows on a code panel between its tags, which stay as
// typed.
func parseMarkdownPieces(src string) []mdPiece {
	var out []mdPiece
	last := 0
	for _, m := range artifactTag.FindAllStringSubmatchIndex(src, -1) {
		out = append(out, parseMarkdownBlocks(src[last:m[0]])...)
		tag := func(a, b int) mdPiece {
			return mdPiece{segs: []widget.RichTextSegment{&widget.TextSegment{Text: src[a:b], Style: mutedInline()}}}
		}
		out = append(out, tag(m[2], m[3]), mdPiece{code: src[m[4]:m[5]], isCode: true}, tag(m[6], m[7]))
		last = m[1]
	}
	return append(out, parseMarkdownBlocks(src[last:])...)
}

// parseMarkdownBlocks turns Markdown into pieces in reading order.
func parseMarkdownBlocks(src string) []mdPiece {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	source := []byte(src)
	doc := markdownParser.Parser().Parse(text.NewReader(source))
	var out []mdPiece
	var prose []widget.RichTextSegment
	flush := func() {
		if len(prose) > 0 {
			out = append(out, mdPiece{segs: prose})
			prose = nil
		}
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if code, ok := codeBlockText(source, n); ok {
			flush()
			out = append(out, mdPiece{code: code, isCode: true})
			continue
		}
		if tb, ok := n.(*east.Table); ok {
			flush()
			out = append(out, mdPiece{table: mdTableOf(source, tb)})
			continue
		}
		if len(prose) > 0 {
			prose = append(prose, paraGap()) // paragraphs, lists and headings apart
		}
		prose = append(prose, mdBlock(source, n, false)...)
	}
	flush()
	return out
}

// paraGap is the space between two blocks of prose: an empty line in
// small type, about half a line.
func paraGap() widget.RichTextSegment {
	s := widget.RichTextStyleParagraph
	s.SizeName = theme.SizeNameCaptionText
	return &widget.TextSegment{Style: s}
}

// mdTableOf reads a table's cells.
func mdTableOf(source []byte, tb *east.Table) *mdTable {
	t := &mdTable{}
	for r := tb.FirstChild(); r != nil; r = r.NextSibling() {
		var cells [][]widget.RichTextSegment
		_, head := r.(*east.TableHeader)
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			style := widget.RichTextStyleInline
			style.TextStyle.Bold = head
			cells = append(cells, mdInline(source, c, style))
		}
		if head {
			t.header = cells
		} else {
			t.rows = append(t.rows, cells)
		}
	}
	return t
}

// tableText is a table as text, for one-line previews.
func (t *mdTable) text() string {
	var b strings.Builder
	for _, row := range append([][][]widget.RichTextSegment{t.header}, t.rows...) {
		for _, cell := range row {
			for _, seg := range cell {
				b.WriteString(seg.Textual())
			}
			b.WriteString(" ")
		}
	}
	return b.String()
}

// codeBlockText is the text of a fenced or indented code block.
func codeBlockText(source []byte, n ast.Node) (string, bool) {
	switch n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock:
	default:
		return "", false
	}
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(source))
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// paraEnd ends a paragraph: an empty block segment.
func paraEnd() widget.RichTextSegment {
	return &widget.TextSegment{Style: widget.RichTextStyleParagraph}
}

// mdBlock renders one block node (not a top-level code block).
func mdBlock(source []byte, n ast.Node, quote bool) []widget.RichTextSegment {
	base := widget.RichTextStyleInline
	if quote {
		base.TextStyle.Italic = true
		base.ColorName = theme.ColorNamePlaceHolder
	}
	switch t := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		segs := mdInline(source, n, base)
		// A tight list item's text ends its line when more follows (a
		// nested list, code).
		if _, ok := n.(*ast.Paragraph); ok || n.NextSibling() != nil {
			segs = append(segs, paraEnd())
		}
		return segs
	case *ast.Heading:
		style := base
		style.TextStyle.Bold = true
		if t.Level <= 2 {
			style.SizeName = theme.SizeNameSubHeadingText
		}
		segs := mdInline(source, n, style)
		return append(segs, paraEnd())
	case *ast.List:
		var items []widget.RichTextSegment
		for li := n.FirstChild(); li != nil; li = li.NextSibling() {
			var texts []widget.RichTextSegment
			for c := li.FirstChild(); c != nil; c = c.NextSibling() {
				if code, ok := codeBlockText(source, c); ok {
					texts = append(texts, codeSegment(code))
					continue
				}
				texts = append(texts, mdBlock(source, c, quote)...)
			}
			// A list item's last paragraph needs no gap of its own.
			if k := len(texts); k > 0 {
				if ts, ok := texts[k-1].(*widget.TextSegment); ok && ts.Text == "" && k > 1 {
					texts = texts[:k-1]
				}
			}
			items = append(items, &widget.ParagraphSegment{Texts: texts})
		}
		l := &widget.ListSegment{Items: items, Ordered: t.IsOrdered()}
		if t.IsOrdered() {
			l.SetStartNumber(t.Start)
		}
		return []widget.RichTextSegment{l}
	case *ast.Blockquote:
		var segs []widget.RichTextSegment
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if code, ok := codeBlockText(source, c); ok {
				segs = append(segs, codeSegment(code))
				continue
			}
			segs = append(segs, mdBlock(source, c, true)...)
		}
		return segs
	case *ast.ThematicBreak:
		return []widget.RichTextSegment{&widget.SeparatorSegment{}}
	case *ast.HTMLBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(source))
		}
		if t.HasClosure() {
			b.Write(t.ClosureLine.Value(source))
		}
		return []widget.RichTextSegment{&widget.TextSegment{Text: strings.TrimSuffix(b.String(), "\n"), Style: base}, paraEnd()}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		code, _ := codeBlockText(source, n)
		return []widget.RichTextSegment{codeSegment(code)}
	}
	// Anything else: its text, so nothing said is lost.
	if txt := nodeText(source, n); txt != "" {
		return []widget.RichTextSegment{&widget.TextSegment{Text: txt, Style: base}, paraEnd()}
	}
	return nil
}

// codeSegment is code inside a list or a quote, monospaced on its own lines.
func codeSegment(code string) widget.RichTextSegment {
	return &widget.TextSegment{Text: code, Style: widget.RichTextStyleCodeBlock}
}

// mdInline renders a block's inline children with a style.
func mdInline(source []byte, n ast.Node, style widget.RichTextStyle) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			s := string(t.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				s += "\n"
			}
			segs = appendText(segs, s, style)
		case *ast.String:
			segs = appendText(segs, string(t.Value), style)
		case *ast.CodeSpan:
			cs := widget.RichTextStyleCodeInline
			cs.TextStyle.Bold = style.TextStyle.Bold
			segs = append(segs, &widget.TextSegment{Text: nodeText(source, t), Style: cs})
		case *ast.Emphasis:
			es := style
			if t.Level >= 2 {
				es.TextStyle.Bold = true
			} else {
				es.TextStyle.Italic = true
			}
			segs = append(segs, mdInline(source, t, es)...)
		case *ast.Link:
			segs = append(segs, link(nodeText(source, t), string(t.Destination)))
		case *ast.AutoLink:
			u := string(t.URL(source))
			segs = append(segs, link(string(t.Label(source)), u))
		case *ast.Image:
			segs = appendText(segs, "[image: "+nodeText(source, t)+"]", style)
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < t.Segments.Len(); i++ {
				seg := t.Segments.At(i)
				b.Write(seg.Value(source))
			}
			segs = appendText(segs, b.String(), style)
		default:
			segs = append(segs, mdInline(source, c, style)...)
		}
	}
	return segs
}

// appendText adds text, merged into the previous segment of the same style
// so highlighting and wrapping see whole runs.
func appendText(segs []widget.RichTextSegment, s string, style widget.RichTextStyle) []widget.RichTextSegment {
	if style.TextStyle.Bold {
		style.TextStyle = boldStyle(s) // CJK keeps its bold (fonts_cjk.go)
	}
	if k := len(segs); k > 0 {
		if ts, ok := segs[k-1].(*widget.TextSegment); ok && ts.Style == style {
			ts.Text += s
			return segs
		}
	}
	return append(segs, &widget.TextSegment{Text: s, Style: style})
}

// link is a hyperlink, or plain text when the address does not parse.
func link(label, dest string) widget.RichTextSegment {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme == "" {
		return &widget.TextSegment{Text: label, Style: widget.RichTextStyleInline}
	}
	if label == "" {
		label = dest
	}
	return &widget.HyperlinkSegment{Text: label, URL: u}
}

// nodeText is the text inside a node, markup dropped.
func nodeText(source []byte, n ast.Node) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(source))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// markdownView lays out Markdown with words marked.
func markdownView(src string, mk *marker) fyne.CanvasObject {
	pieces := parseMarkdownPieces(src)
	if len(pieces) == 1 && !pieces[0].isCode && pieces[0].table == nil {
		return proseView(pieces[0].segs, mk)
	}
	box := container.NewVBox()
	for _, p := range pieces {
		switch {
		case p.isCode:
			box.Add(codeView(p.code, mk))
		case p.table != nil:
			box.Add(tableView(p.table, mk))
		default:
			box.Add(proseView(p.segs, mk))
		}
	}
	return box
}

// tableView lays a table out as a grid: the header on a tinted band,
// columns of one width, each row as tall as its tallest cell, a rule
// between rows; cells wrap.
func tableView(t *mdTable, mk *marker) fyne.CanvasObject {
	cols := len(t.header)
	for _, r := range t.rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return container.NewVBox()
	}
	row := func(cells [][]widget.RichTextSegment) *fyne.Container {
		objs := make([]fyne.CanvasObject, cols)
		for i := range objs {
			var segs []widget.RichTextSegment
			if i < len(cells) {
				segs = cells[i]
			}
			rt := widget.NewRichText(guardWrap(mk.mark(segs))...)
			rt.Wrapping = fyne.TextWrapWord
			objs[i] = rt
		}
		return container.NewGridWithColumns(cols, objs...)
	}
	head := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	head.CornerRadius = theme.InputRadiusSize()
	box := container.NewVBox(container.NewStack(head, row(t.header)))
	for i, r := range t.rows {
		if i > 0 {
			box.Add(widget.NewSeparator())
		}
		box.Add(row(r))
	}
	return box
}

func proseView(segs []widget.RichTextSegment, mk *marker) *widget.RichText {
	rt := widget.NewRichText(guardWrap(mk.mark(segs))...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// wrapGuard starts a text segment that continues a line. Fyne 2.7's
// wrapping, when a segment begins where not one character of it fits on
// the line, never goes back to the full width and sets every later
// character on a line of its own; a first character of no width always
// fits, and the rest then wraps as it should.
const wrapGuard = "\u200b"

// guardWrap puts wrapGuard before each text segment that follows an
// inline one on the same line.
func guardWrap(segs []widget.RichTextSegment) []widget.RichTextSegment {
	after := false // the segment before flows on: this one continues its line
	for _, seg := range segs {
		switch v := seg.(type) {
		case *widget.TextSegment:
			if after && v.Text != "" && !strings.HasPrefix(v.Text, wrapGuard) {
				v.Text = wrapGuard + v.Text
			}
			after = v.Style.Inline && v.Text != ""
		case *widget.HyperlinkSegment:
			after = true
		case *widget.ParagraphSegment:
			guardWrap(v.Texts)
			after = false
		case *widget.ListSegment:
			guardWrap(v.Items)
			after = false
		default:
			after = seg.Inline()
		}
	}
	return segs
}

// codeView is code on a tinted panel, monospaced, broken at the edge
// rather than scrolled sideways inside a scrolling transcript.
func codeView(code string, mk *marker) fyne.CanvasObject {
	rt := widget.NewRichText(guardWrap(mk.mark([]widget.RichTextSegment{&widget.TextSegment{Text: code, Style: widget.RichTextStyleCodeBlock}}))...)
	rt.Wrapping = fyne.TextWrapBreak
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	return container.NewStack(bg, rt)
}

// markdownPlain is Markdown's words without its markup, for one-line
// previews: "## Plan" reads "Plan", "`go test`" reads "go test".
func markdownPlain(src string) string {
	var b strings.Builder
	var add func(segs []widget.RichTextSegment)
	add = func(segs []widget.RichTextSegment) {
		for _, seg := range segs {
			switch v := seg.(type) {
			case *widget.TextSegment:
				if v.Text == "" && v.Style.SizeName == theme.SizeNameCaptionText {
					continue // a gap between paragraphs
				}
				b.WriteString(v.Text)
				if !v.Inline() {
					b.WriteByte(' ')
				}
			case *widget.HyperlinkSegment:
				b.WriteString(v.Text)
			case *widget.ParagraphSegment:
				add(v.Texts)
				b.WriteByte(' ')
			case *widget.ListSegment:
				add(v.Items)
			}
		}
	}
	for _, p := range parseMarkdownPieces(src) {
		switch {
		case p.isCode:
			b.WriteString(p.code + " ")
		case p.table != nil:
			b.WriteString(p.table.text())
		default:
			add(p.segs)
		}
	}
	return strings.TrimSpace(b.String())
}
