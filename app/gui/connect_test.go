package gui

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ireneo-app/ireneo/auditlog"
	"github.com/ireneo-app/ireneo/clients"
	"github.com/ireneo-app/ireneo/mcpserver"
)

// secretInDialog reads the token secret out of the open secret dialog.
func secretInDialog(t *testing.T, u *ui) string {
	t.Helper()
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog open; last error %q", u.lastError)
	}
	var secret string
	walk(top, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok && strings.HasPrefix(e.Text, mcpserver.TokenPrefix) {
			secret = e.Text
		}
	})
	if secret == "" {
		t.Fatalf("no secret shown; dialog says %q", overlayText(u))
	}
	return secret
}

func TestTokenCreateRevokeRoundTrip(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	c := u.connect
	u.showScreen(screenConnect)
	waitIdle(t, u)

	test.Type(c.name, "claude-code")
	test.Tap(c.create)
	waitIdle(t, u)
	capture(t, u, "connect-token-created")
	secret := secretInDialog(t, u)
	// A new token is masked on screen (what is drawn: the canvas texts):
	// Copy is what the dialog is for.
	var drawn []string
	walk(u.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if tx, ok := o.(*canvas.Text); ok {
			drawn = append(drawn, tx.Text)
		}
	})
	if d := strings.Join(drawn, ""); strings.Contains(d, secret[len(secret)-8:]) || !strings.Contains(d, "•••") {
		t.Fatalf("the new token's secret is drawn: %q", drawn)
	}
	// Enter copies and closes.
	typeKey(t, u, fyne.KeyReturn)
	if got := u.app.Clipboard().Content(); got != secret {
		t.Fatalf("Enter put %q on the clipboard", got)
	}
	if u.win.Canvas().Overlays().Top() != nil && strings.Contains(overlayText(u), "created") {
		t.Fatal("Enter left the token dialog open")
	}
	if toks := c.activeTokens(); len(toks) != 1 || toks[0] != "claude-code" {
		t.Fatalf("active tokens %q", toks)
	}
	// The secret is nowhere in the memory or the settings.
	if hits := grepDir(t, m.Dir(), secret); len(hits) > 0 {
		t.Fatalf("the secret is in %v", hits)
	}
	if hits := grepDir(t, os.Getenv("IRENEO_CONFIG"), secret); len(hits) > 0 {
		t.Fatalf("the secret is in %v", hits)
	}

	// The client card picks the token named after it, and masks the secret.
	if sel := c.tokenFor[clients.ClientClaudeCode].Selected; sel != "claude-code" {
		t.Fatalf("Claude Code's card uses token %q", sel)
	}
	waitIdle(t, u)
	shown := c.snippets[clients.ClientClaudeCode].String()
	if strings.Contains(shown, secret) || !strings.Contains(shown, "Authorization") {
		t.Fatalf("the card should show the config with the secret masked: %q", shown)
	}
	// Claude Desktop's card starts with its config, however tall the
	// other cards grew with the token (a spacer there made a blank band).
	c.clients.SelectIndex(0)
	u.win.Resize(fyne.NewSize(1280, 800))
	relayout(u.win.Content())
	if y := c.snippets[clients.ClientClaudeDesktop].Position().Y; y > 60 {
		t.Errorf("Claude Desktop's config starts %v down its card", y)
	}
	capture(t, u, "connect-claude-desktop")
	c.clients.SelectIndex(1)
	capture(t, u, "connect-tokens")
	// Copy copies the exact config, secret included.
	c.copyConfig(clients.ClientClaudeCode)
	waitIdle(t, u)
	if got := u.app.Clipboard().Content(); !strings.Contains(got, "Bearer "+secret) || !strings.Contains(got, "mcpServers") {
		t.Fatalf("copied config %q", got)
	}
	// Write to config: merges, keeping other servers, with a backup.
	cfgPath := filepath.Join(u.deps.Home, ".claude.json")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	os.WriteFile(cfgPath, []byte(`{"mcpServers": {"other": {"command": "other-server"}}, "theme": "dark"}`), 0o600)
	c.confirmWrite(clients.ClientClaudeCode)
	waitIdle(t, u)
	tapDialogButton(t, u, "Write config")
	waitIdle(t, u)
	data, _ := os.ReadFile(cfgPath)
	if !strings.Contains(string(data), `"other"`) || !strings.Contains(string(data), secret) || !strings.Contains(u.lastInfo, "ireneo-backup-") {
		t.Fatalf("written config %s; info %q; error %q", data, u.lastInfo, u.lastError)
	}

	// Reveal reads it back from the store.
	c.revealToken("claude-code")
	waitIdle(t, u)
	if got := secretInDialog(t, u); got != secret {
		t.Fatal("reveal shows another secret")
	}
	typeKey(t, u, fyne.KeyEscape) // Escape closes it
	if u.win.Canvas().Overlays().Top() != nil && strings.Contains(overlayText(u), "Anyone with this secret") {
		t.Fatal("Escape left the Reveal dialog open")
	}

	// Revoke, through its confirmation.
	c.confirmRevoke("claude-code")
	tapDialogButton(t, u, "Revoke")
	waitIdle(t, u)
	if len(c.activeTokens()) != 0 {
		t.Fatalf("still active: %q", c.activeTokens())
	}
	if len(c.list) != 1 || c.list[0].Active() || !strings.HasPrefix(tokenMeta(c.list[0]), "revoked") {
		t.Fatalf("token list after revoke: %+v", c.list)
	}
	if _, err := u.deps.Server.Tokens().Reveal(context.Background(), "claude-code"); err == nil {
		t.Fatal("a revoked token can still be revealed")
	}
	if sel := c.tokenFor[clients.ClientClaudeCode].Selected; sel != noToken {
		t.Fatalf("the card still uses the revoked token (%q)", sel)
	}
	// A bad name is refused with a dialog.
	c.createToken("no spaces allowed", "")
	if !strings.Contains(u.lastError, "create a token") {
		t.Fatalf("want an error for a bad name, got %q", u.lastError)
	}
}

func TestActivityShowsMCPCall(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.startServer()
	waitIdle(t, u)
	srv := u.deps.Server
	if !srv.Running() {
		t.Fatalf("server did not start: %q", u.lastError)
	}
	if !strings.HasPrefix(u.tray.Items[3].Label, trayRunning) || u.tray.Items[4].Label != trayStop {
		t.Fatalf("tray shows %q / %q", u.tray.Items[3].Label, u.tray.Items[4].Label)
	}
	secret, _, err := srv.Tokens().Create(context.Background(), "agent-one", nil)
	if err != nil {
		t.Fatal(err)
	}
	u.showScreen(screenActivity)
	waitIdle(t, u)
	if u.activity.summary.Text != "No calls yet" {
		t.Fatalf("activity before any call: %q", u.activity.summary.Text)
	}

	// A real MCP client calls recall over loopback HTTP.
	tr, err := transport.NewStreamableHTTP(srv.URL(), transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret}))
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewClient(tr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "gui-test", Version: "1"}
	if _, err := cl.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]any{"query": phraseBudget}
	if _, err := cl.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}

	// The server's OnCall hook refreshes the activity list by itself.
	deadline := time.Now().Add(10 * time.Second)
	for len(u.activity.rows) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	waitIdle(t, u)
	if len(u.activity.rows) != 1 {
		t.Fatalf("activity shows %d rows", len(u.activity.rows))
	}
	capture(t, u, "activity")
	row := u.activity.rows[0]
	if activityCell(row, 1) != "agent-one" || activityCell(row, 2) != "recall" || activityCell(row, 3) != phraseBudget ||
		activityCell(row, 4) == "0" || activityCell(row, 6) != "ok" {
		t.Fatalf("activity row: %v %v %v %v %v", activityCell(row, 1), activityCell(row, 2), activityCell(row, 3), activityCell(row, 4), activityCell(row, 6))
	}
	// Filter by client.
	u.activity.client.SetSelected("agent-one")
	waitIdle(t, u)
	if len(u.activity.rows) != 1 {
		t.Fatal("filtering by the caller should keep its call")
	}
	u.activity.clients["someone-else"] = true
	u.activity.updateClients()
	u.activity.client.SetSelected("someone-else")
	waitIdle(t, u)
	if len(u.activity.rows) != 0 {
		t.Fatal("filtering by another client should hide the call")
	}

	// Stop from the tray toggle.
	u.toggleServer()
	waitIdle(t, u)
	if srv.Running() || u.tray.Items[3].Label != trayStopped {
		t.Fatalf("server still running after the toggle (%q)", u.tray.Items[3].Label)
	}
}

// TestActivityShowsRefusedRequests: a request with a wrong token shows on
// the Activity screen, with why it was refused.
func TestActivityShowsRefusedRequests(t *testing.T) {
	m := newTestMemory(t)
	u := newTestUI(t, m)
	u.startServer()
	waitIdle(t, u)
	srv := u.deps.Server
	if !srv.Running() {
		t.Fatalf("server did not start: %q", u.lastError)
	}
	u.showScreen(screenActivity)
	waitIdle(t, u)
	req, _ := http.NewRequest(http.MethodPost, srv.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer ireneo_wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d", resp.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(u.activity.rows) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	waitIdle(t, u)
	if len(u.activity.rows) != 1 {
		t.Fatalf("activity shows %d rows", len(u.activity.rows))
	}
	row := u.activity.rows[0]
	if activityCell(row, 1) != mcpserver.RefusedClient || activityCell(row, 6) != auditlog.Unauthorized ||
		!strings.Contains(activityCell(row, 3), "unknown or revoked token") || strings.Contains(activityCell(row, 3), "ireneo_wrong") {
		t.Fatalf("activity row: %q %q %q", activityCell(row, 1), activityCell(row, 3), activityCell(row, 6))
	}
	if !strings.Contains(u.activity.summary.Text, "1 refused request") {
		t.Fatalf("summary %q", u.activity.summary.Text)
	}
}
