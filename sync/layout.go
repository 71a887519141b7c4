package sync

import (
	"path/filepath"
	"regexp"
	"strings"
)

// The sync folder:
//
//	machines/<machine>/machine.json                 who the machine is (machineInfo)
//	machines/<machine>/journal.jsonl                its journal, appended to
//	machines/<machine>/conversations/<hash>.funes.jsonl
//
// <hash> is memory.ConversationHash: no file name carries a conversation's
// id, so neither the folder nor the sync engine's own index keeps one
// after a forget. The sync engine adds its own files beside ours:
// temporary files while it writes (.syncthing.<name>.tmp), conflict copies
// (<name>.sync-conflict-<date>-<time>-<device>.<ext>) and old versions in
// .stversions/, each still carrying the hash in its name.
const (
	machinesDir      = "machines"
	machineInfoName  = "machine.json"
	journalName      = "journal.jsonl"
	conversationsDir = "conversations"
	convSuffix       = ".funes.jsonl"
	// ourTempPrefix marks the files Ireneo writes before renaming them in
	// place; setup asks Syncthing to ignore them (.stignore).
	ourTempPrefix = ".ireneo-tmp-"
	versionsDir   = ".stversions"
)

// fileKind is what a file in the sync folder is.
type fileKind int

const (
	kindOther        fileKind = iota
	kindConversation          // machines/<m>/conversations/<hash>.funes.jsonl
	kindConflict              // a conflict copy of one, in the same place
	kindJournal               // machines/<m>/journal.jsonl, or a conflict copy of it
	kindMachineInfo           // machines/<m>/machine.json
	kindEngineTemp            // the sync engine's temporary file
	kindVersion               // an old version, under .stversions
	kindOurTemp               // ours, not yet renamed in place
)

var (
	hashIn      = regexp.MustCompile(`[0-9a-f]{64}`)
	machineIDRe = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// classified is a file of the sync folder, by its path relative to it.
type classified struct {
	kind    fileKind
	machine string // the subfolder it is in, for files under machines/
	conv    string // the conversation hash its name carries, if any
}

// classify tells what the file at rel (slash or OS separators, relative to
// the folder) is.
func classify(rel string) classified {
	rel = filepath.ToSlash(rel)
	parts := strings.Split(rel, "/")
	base := parts[len(parts)-1]
	c := classified{conv: hashIn.FindString(base)}
	switch {
	case strings.HasPrefix(base, ourTempPrefix):
		c.kind = kindOurTemp
		return c
	case isEngineTemp(base):
		c.kind = kindEngineTemp
		return c
	case parts[0] == versionsDir:
		c.kind = kindVersion
		return c
	}
	if len(parts) < 3 || parts[0] != machinesDir || !machineIDRe.MatchString(parts[1]) {
		return c
	}
	c.machine = parts[1]
	switch {
	case len(parts) == 3 && base == machineInfoName:
		c.kind = kindMachineInfo
	case len(parts) == 3 && (base == journalName || isConflictOf(base, "journal", ".jsonl")):
		c.kind = kindJournal
	case len(parts) == 4 && parts[2] == conversationsDir && c.conv != "" && base == c.conv+convSuffix:
		c.kind = kindConversation
	case len(parts) == 4 && parts[2] == conversationsDir && c.conv != "" && strings.Contains(base, ".sync-conflict-"):
		c.kind = kindConflict
	}
	return c
}

// isEngineTemp: Syncthing writes .syncthing.<name>.tmp (~syncthing~<name>.tmp
// on Windows) and renames it in place when it is whole.
func isEngineTemp(base string) bool {
	return strings.HasSuffix(base, ".tmp") && (strings.HasPrefix(base, ".syncthing.") || strings.HasPrefix(base, "~syncthing~"))
}

// isConflictOf: a Syncthing conflict copy of stem+ext.
func isConflictOf(base, stem, ext string) bool {
	return strings.HasPrefix(base, stem+".sync-conflict-") && strings.HasSuffix(base, ext)
}

func machineDir(folder, machine string) string {
	return filepath.Join(folder, machinesDir, machine)
}

func journalPath(folder, machine string) string {
	return filepath.Join(machineDir(folder, machine), journalName)
}

func conversationPath(folder, machine, conv string) string {
	return filepath.Join(machineDir(folder, machine), conversationsDir, conv+convSuffix)
}
