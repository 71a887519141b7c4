// Package funes owns the funes jsonl format: the model of a conversation
// (Session, Turn, Block and the harness, role and block-type names), its
// codec (one turn a line: MarshalSession, WriteSession, ReadSessions) and
// WriteFileAtomic, which every file Ireneo replaces goes through. It is a
// leaf: it imports nothing of Ireneo's, so importers, memory, backup and the
// rest share one model without depending on the store.
package funes
