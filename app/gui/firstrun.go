package gui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// What Search and Conversations say on a memory with nothing in it yet:
// what to do first, and how to get the exports Import reads.

// exportHowTo tells a person where their history comes from.
const exportHowTo = "To bring in your history:\n\n" +
	"• ChatGPT: Settings › Data controls › Export data. A link arrives by email; download the .zip.\n" +
	"• Claude: Settings › Privacy › Export data. A link arrives by email; download the .zip.\n" +
	"• Codex and Claude Code keep their sessions on this computer; the Import screen finds them.\n\n" +
	"Then open Import (Ctrl+3): it finds exports in Downloads, or drop the .zip on this window."

// firstRunHelp is the empty-memory message under a headline, with a
// button to the Import screen.
func firstRunHelp(u *ui, headline string) []fyne.CanvasObject {
	head := widget.NewLabelWithStyle(headline+" Your memory has no conversations yet.", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	body := widget.NewLabel(exportHowTo)
	body.Wrapping = fyne.TextWrapWord
	goImport := widget.NewButtonWithIcon("Go to Import", theme.DownloadIcon(), func() { u.showScreen(screenImport) })
	goImport.Importance = widget.HighImportance
	return []fyne.CanvasObject{head, body, container.NewHBox(goImport)}
}
