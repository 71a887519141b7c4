package gui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ireneo-app/ireneo/mcpserver"
	"github.com/ireneo-app/ireneo/memory"
	"github.com/ireneo-app/ireneo/tokenstore"
)

// TestFixForKnowsErrorsByType: the advice under an error follows its type
// through any wrapping, never its words.
func TestFixForKnowsErrorsByType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("start the server: %w", mcpserver.ErrPortInUse), "uses that port"},
		{fmt.Errorf("open: %w", memory.ErrNotFound), "forgotten"},
		{fmt.Errorf("create: %w", tokenstore.ErrAccessTokenExists), "another name"},
		{fmt.Errorf("something already in use, in words only"), "Try again"},
	} {
		if got := fixFor(c.err); !strings.Contains(got, c.want) {
			t.Errorf("fixFor(%v) = %q, want it to say %q", c.err, got, c.want)
		}
	}
}
