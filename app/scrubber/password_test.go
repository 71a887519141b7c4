package scrubber

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/conversations"
	"github.com/ireneo-app/ireneo/importers"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/memscrub"
	"github.com/ireneo-app/ireneo/redact"
	"github.com/ireneo-app/ireneo/settings"
)

// The reported case (issue 32): a ChatGPT conversation, "Create local user
// script", whose canvas holds a PowerShell script with the password in a
// variable and whose answer names it in prose. Neither an import with
// scrub on nor a scan found it; both must, and neither the transcript nor
// any file of the memory may keep it.

const canvasPassword = "Snoppy23"

// writeCanvasExport writes the conversation as ChatGPT exports it: the
// canvas document is a JSON string in a message to canmore.create_textdoc.
func writeCanvasExport(t *testing.T) string {
	t.Helper()
	script := "# Create a local user\n$Username = \"LocalAdmin\"\n$PlainPassword = \"" + canvasPassword + "\"\n" +
		"$Password = ConvertTo-SecureString $PlainPassword -AsPlainText -Force\n" +
		"New-LocalUser -Name $Username -Password $Password -FullName \"Local Admin\"\n" +
		"Add-LocalGroupMember -Group \"Administrators\" -Member $Username\n"
	doc, _ := json.Marshal(map[string]string{"name": "create_local_user", "type": "code/powershell", "content": script})
	msg := func(id, role, parent, child, recipient, text string, ts float64) map[string]any {
		var children []string
		if child != "" {
			children = []string{child}
		}
		return map[string]any{"id": id, "parent": parent, "children": children, "message": map[string]any{
			"id": id, "author": map[string]any{"role": role, "metadata": map[string]any{}}, "create_time": ts,
			"content": map[string]any{"content_type": "text", "parts": []string{text}},
			"weight":  1.0, "metadata": map[string]any{}, "recipient": recipient, "status": "finished_successfully"}}
	}
	conv := map[string]any{"title": "Create local user script", "create_time": 1714000000.0, "update_time": 1714000100.0,
		"conversation_id": "conv-local-user", "id": "conv-local-user", "current_node": "a2", "default_model_slug": "gpt-4o",
		"mapping": map[string]any{
			"root": map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{"u1"}},
			"u1":   msg("u1", "user", "root", "a1", "all", "Write a PowerShell script that creates a local admin user with a generated password.", 1714000000),
			"a1":   msg("a1", "assistant", "u1", "a2", "canmore.create_textdoc", string(doc), 1714000010),
			"a2": msg("a2", "assistant", "a1", "", "all", "This script creates the user **LocalAdmin** with the generated password \""+canvasPassword+
				"\" and adds it to the Administrators group. Run it from an elevated PowerShell.", 1714000020),
		}}
	data, err := json.Marshal([]any{conv})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// storedText is every block of the stored conversation, one after another.
func storedText(t *testing.T, m *memory.Memory) string {
	t.Helper()
	s, err := conversations.Get(context.Background(), m, conversations.GetOptions{SessionID: "conv-local-user"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tr := range s.Turns {
		for _, bl := range tr.Blocks {
			b.WriteString(bl.Text + "\n")
		}
	}
	return b.String()
}

func TestCanvasPasswordRedactedAtImport(t *testing.T) {
	src := writeCanvasExport(t)
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := settings.Default()
	st.ScrubOnImport = true
	redactor, err := ImportRedactor(st)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := importers.Run(context.Background(), m, []string{src}, importers.Options{Redact: redactor})
	if err != nil || sum.New != 1 {
		t.Fatalf("import: %v, %+v", err, sum)
	}
	if sum.Redacted["password"] < 2 {
		t.Errorf("redacted at import: %v, want the password in the canvas and in the answer", sum.Redacted)
	}
	body := storedText(t, m)
	if strings.Count(body, "[REDACTED:password]") < 2 || !strings.Contains(body, "New-LocalUser") {
		t.Errorf("the stored conversation does not show both redactions:\n%s", redact.MaskText(mustScrubber(t), body))
	}
	if files := filesHolding(t, dir, canvasPassword); len(files) > 0 {
		t.Errorf("the password is still in %v", files)
	}
}

func TestCanvasPasswordFoundByScan(t *testing.T) {
	ctx := context.Background()
	src := writeCanvasExport(t)
	dir := t.TempDir()
	m, err := memory.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Imported with scrub off, as --no-scrub does.
	if _, err := importers.Run(ctx, m, []string{src}, importers.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(filesHolding(t, dir, canvasPassword)) == 0 {
		t.Fatal("the password was never stored: the test sees nothing")
	}
	sc := mustScrubber(t)
	scan, err := memscrub.Scan(ctx, m, memscrub.Options{Finder: sc})
	if err != nil {
		t.Fatal(err)
	}
	turns := map[int]bool{}
	for _, f := range scan.Findings {
		if f.Rule == "password" {
			turns[f.Seq] = true
		}
		if strings.Contains(f.Preview, "opp") {
			t.Errorf("preview %q shows the password", f.Preview)
		}
	}
	if len(turns) < 2 {
		t.Fatalf("scan found the password in turns %v, want the canvas and the answer: %+v", turns, scan.Findings)
	}
	if _, err := memscrub.Apply(ctx, m, memscrub.Options{Finder: sc}); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, dir, canvasPassword); len(files) > 0 {
		t.Errorf("after Redact all the password is still in %v", files)
	}
	if body := storedText(t, m); strings.Contains(body, canvasPassword) || !strings.Contains(body, "[REDACTED:password]") {
		t.Errorf("after Redact all:\n%s", redact.MaskText(sc, body))
	}
}
