package indexdoc

import "github.com/ireneo-app/ireneo/engine"

// SeqBits is how many low bits of a document id hold the turn's seq: the
// engine's member bits, so a conversation's turns code compactly. A turn
// of seq 1<<SeqBits or more is not indexed.
const SeqBits = engine.MemberBits

// DocID is the engine document of a turn. A new session row takes the
// largest id in the table plus one (SQLite's rowid), so an import appends
// to the end of every posting list. Ids do not only grow: a re-import of
// the newest session, its old rows deleted first, may get its id back, but
// that id is still above every remaining one.
func DocID(sess int64, seq int) uint64 { return uint64(sess)<<SeqBits | uint64(seq) }

// DocSession is the row id of the conversation whose turn doc is.
func DocSession(doc uint64) int64 { return int64(doc >> SeqBits) }

// DocSeq is the seq of the turn doc is.
func DocSeq(doc uint64) int { return int(doc & (1<<SeqBits - 1)) }

// SessionDocs is the range of a session's document ids.
func SessionDocs(sess int64) (lo, hi uint64) { return DocID(sess, 0), DocID(sess+1, 0) - 1 }
