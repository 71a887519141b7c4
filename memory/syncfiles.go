package memory

import "github.com/ireneo-app/ireneo/funes"

// syncFiles makes files written under dir durable before they are renamed
// into place (one syncfs on Linux); syncEach fsyncs each.
var (
	syncFiles = funes.SyncFiles
	syncEach  = funes.SyncEach
)
