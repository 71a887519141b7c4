package gui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/memory"
	memsync "github.com/ireneo-app/ireneo/sync"
)

// The Sync card sets the memory up on a folder, keeps it in step with
// another machine's memory there, journals the choices made in the app,
// shows the machines in the card and the tray, and stops syncing.
func TestSyncCard(t *testing.T) {
	setupPoll = 100 * time.Millisecond
	m := newTestMemory(t)
	u := newTestUI(t, m)
	v, _ := syncPanels.Load(u)
	p := v.(*syncPanel)
	u.showScreen(screenSettings)
	waitIdle(t, u)
	if slices.Contains(u.tray.Items, p.tray) {
		t.Fatal("a sync line in the tray before setup")
	}
	folder := filepath.Join(t.TempDir(), "Sync")
	onUI(func() {
		p.folder.SetText(folder)
		p.name.SetText("laptop")
		p.syncthing.SetChecked(false) // no Syncthing runs here: the folder alone, as a network disk
		test.Tap(p.setupBtn)
	})
	waitIdle(t, u)
	waitSync(t, u, p, func(st memsync.Status) bool { return !st.LastPass.IsZero() })
	if !strings.Contains(p.status.Text, "Folder: "+folder) || !strings.Contains(p.status.Text, "laptop (this one): 5 conversations") {
		t.Fatalf("card says %q", p.status.Text)
	}

	// Another machine on the same folder gets this one's conversations and
	// a star given here; this one shows it in the tray.
	other, err := memory.Open(filepath.Join(t.TempDir(), "desktop"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := memsync.SetUp(other.Dir(), folder, "desktop"); err != nil {
		t.Fatal(err)
	}
	if err := m.Star(context.Background(), "conv-budget", true); err != nil {
		t.Fatal(err)
	}
	e, err := memsync.Open(other, memsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := e.Pass(context.Background()); err != nil || rep.Imported != 5 {
		t.Fatalf("the other machine's pass: %v %+v", err, rep)
	}
	e.Close()
	ss, _, err := conversations.List(context.Background(), other, conversations.Query{Starred: true})
	if err != nil || len(ss) != 1 || ss[0].SessionID != "conv-budget" {
		t.Fatalf("the other machine's starred: %v %+v", err, ss)
	}
	waitSync(t, u, p, func(st memsync.Status) bool { return len(st.Machines) == 2 })
	if !strings.HasPrefix(p.tray.Label, traySync+"2 machines") || !slices.Contains(u.tray.Items, p.tray) {
		t.Fatalf("tray says %q", p.tray.Label)
	}
	var sub []string
	onUI(func() {
		for _, it := range p.tray.ChildMenu.Items {
			sub = append(sub, it.Label)
		}
	})
	if len(sub) != 5 || !strings.HasPrefix(sub[0], "laptop (this one): last change ") || !strings.HasPrefix(sub[1], "desktop: ") ||
		!strings.HasPrefix(sub[3], "Resolved: 0 conflicting choices") {
		t.Fatalf("tray submenu %q", sub)
	}

	onUI(func() { test.Tap(p.leaveBtn) })
	tapDialogButton(t, u, "Stop syncing")
	waitIdle(t, u)
	waitSync(t, u, p, func(st memsync.Status) bool { return st.Folder == "" })
	if _, err := memsync.LoadConfig(m.Dir()); err == nil {
		t.Fatal("still set up after Stop syncing")
	}
	if slices.Contains(u.tray.Items, p.tray) {
		t.Fatal("the sync line is still in the tray after leaving")
	}

	// Set up again from the command line while the app runs: the app
	// takes it up.
	if _, err := memsync.SetUp(m.Dir(), folder, "laptop"); err != nil {
		t.Fatal(err)
	}
	waitSync(t, u, p, func(st memsync.Status) bool {
		return st.Folder == folder && !st.LastPass.IsZero() && len(st.Machines) == 2
	})
	onUI(func() { p.halt(func() {}) })
}

// waitSync waits until the card shows a status that ok accepts.
func waitSync(t *testing.T, u *ui, p *syncPanel, ok func(memsync.Status) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st memsync.Status
		onUI(func() {
			p.refresh()
		})
		waitIdle(t, u)
		onUI(func() { st = p.last })
		if ok(st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the card still shows %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
