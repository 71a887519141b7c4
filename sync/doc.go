// Package sync owns one memory across the person's machines, through a
// folder that a file-sync engine (Syncthing, tested; Nextcloud, Dropbox or
// rclone bisync alike) keeps in step. Ireneo writes no replication of its
// own and puts no database, and no file two machines write, in that folder.
//
// The folder holds one subfolder per machine (layout.go), written only by
// that machine: its conversations, as funes jsonl files named by a hash of
// the conversation, and an append-only journal of the person's choices
// (journal.go) — tag, untag, star, project rename, forget and scrub
// redaction — each stamped with a hybrid logical clock (clock.go). Every
// machine imports every machine's conversations into its own memory (the
// fullest copy wins) and replays every journal in one order, clock then
// machine (replay.go), so all of them converge; a forget erases the
// conversation from the memory and from every file in the folder, the
// sync engine's temporary, conflict and version files included
// (pass.go, redact.go), and a conversation forgotten elsewhere that this
// memory never held gets its tombstone through package catalog.
//
// The local side lives in the memory directory, never in the folder:
// config.json (which folder, which machine), the manifest of files
// already read (so an unchanged file is not read again), the choices last
// applied and the clock (state.go). Engine.Run follows the folder and the
// memory's src/ with a watcher (watch.go); a pass reads the memory in one
// read transaction (reads.go); memory reports each choice to the journal
// through its ChoiceObserver (observer.go). syncthing.go sets
// the folder up in the local Syncthing through its REST API.
package sync
