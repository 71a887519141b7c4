// Package indexdoc owns what the index is made of: how a conversation is
// cut into the rows memory stores (turns, their chunks of at most
// MaxChunkBytes, each chunk's o200k count and whether it is searched) and
// into one engine document per turn (its searched text, title, identifiers
// and date as words), how a turn's document id packs its conversation and
// seq, and the preview lists show of a turn.
//
// It is pure: it reads no file and no database, so memory's ingest,
// reindex and forget (which builds a conversation's documents again from
// its stored rows, to delete them) and recall's reads agree on one cut.
// Changing anything here changes what is indexed: bump memory's index
// layout (memory/schema.go) in the same change.
package indexdoc
