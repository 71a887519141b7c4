package gui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/recall"
)

func TestBackupAndRestoreFromSettings(t *testing.T) {
	u := newTestUI(t, newTestMemory(t))
	u.set.DefaultK = 12
	archive := filepath.Join(t.TempDir(), "ireneo-backup.zip")
	u.showScreen(screenSettings)
	if u.backup.summary.Visible() {
		t.Error("the report line takes space under the buttons before any backup")
	}
	u.backup.runBackup(archive)
	waitIdle(t, u)
	if _, err := os.Stat(archive); err != nil {
		t.Fatalf("no archive: %v (%s)", err, u.lastError)
	}
	if got := u.backup.summary.Text; !strings.Contains(got, "Backed up 5 conversations") || !strings.Contains(got, "token secrets") {
		t.Errorf("backup summary %q", got)
	}
	if !u.backup.summary.Visible() {
		t.Error("the backup's report is hidden")
	}

	// Restore on a new, empty memory: the conversations and the index
	// come back, and the screens show them; the settings, every memory's,
	// only when the person says yes to the backup's.
	m2, err := memory.Open(filepath.Join(t.TempDir(), "memory-2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m2.Close() })
	u2 := newTestUI(t, m2)
	u2.backup.runRestore(archive, false)
	waitIdle(t, u2)
	if got := u2.backup.summary.Text; !strings.Contains(got, "Restored 5 conversations") {
		t.Fatalf("restore summary %q (error %q)", got, u2.lastError)
	}
	if u2.set.DefaultK == 12 {
		t.Fatal("the restore took the backup's settings without asking")
	}
	tapDialogButton(t, u2, "Use them")
	waitIdle(t, u2)
	if u2.set.DefaultK != 12 || u2.prefs.topK.Text != "12" {
		t.Errorf("restored settings not taken in: top-k %d, field %q", u2.set.DefaultK, u2.prefs.topK.Text)
	}
	res, err := recall.Recall(context.Background(), m2, recall.Options{Query: phraseBudget})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].SessionID != "conv-budget" {
		t.Errorf("recall after restore: %+v %v", res.Hits, err)
	}

	// Again, into the now full memory: a question, then a merge.
	u2.backup.runRestore(archive, false)
	waitIdle(t, u2)
	tapDialogButton(t, u2, "Merge")
	waitIdle(t, u2)
	if got := u2.backup.summary.Text; !strings.Contains(got, "Merged") || !strings.Contains(got, "0 new, 0 updated, 5 unchanged") {
		t.Errorf("merge summary %q (error %q)", got, u2.lastError)
	}

	// A picture of the panel with its summary, scrolled into view.
	u2.showScreen(screenSettings)
	waitIdle(t, u2)
	walk(u2.tabs.Selected().Content, func(o fyne.CanvasObject) {
		if sc, ok := o.(*container.Scroll); ok {
			sc.ScrollToBottom()
		}
	})
	capture(t, u2, "settings-backup")

	// A damaged archive is refused and changes nothing.
	data, _ := os.ReadFile(archive)
	bad := filepath.Join(t.TempDir(), "bad.zip")
	os.WriteFile(bad, data[:len(data)/2], 0o600)
	u2.backup.runRestore(bad, false)
	waitIdle(t, u2)
	if !strings.Contains(u2.lastError, "damaged") {
		t.Errorf("a damaged archive: last error %q", u2.lastError)
	}
	if _, n, _ := conversations.List(context.Background(), m2, conversations.Query{Limit: 1}); n != 5 {
		t.Errorf("after a refused restore the memory holds %d conversations", n)
	}
}
