// Package wordvec owns Ireneo's static word vectors: the embedded table
// (table.bin, GloVe's 50,000 most frequent words, 100 dimensions, int8 with
// a scale per word; PROVENANCE.md says where it comes from and how to
// rebuild it), the tokeniser that matches GloVe's lowercase vocabulary, SIF
// sentence vectors (each word weighted a/(a+p) by its frequency), removal of
// the common components of a set of vectors, and cosine similarity.
//
// It knows nothing of recall: memory's semantic stage uses it to compare a
// question with its candidate passages by meaning as well as by words, so
// "running too hot" can find "overheating".
package wordvec
