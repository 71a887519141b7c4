#!/usr/bin/env python3
"""Reduce and redact a real Cursor state.vscdb, or an agent transcript
(.txt), into a test sample.

usage: reduce.py [--paths] [--state FILE] [--also SRC.json=DST.json] SRC DST SEED TABLE:KEY... [TABLE:LIKE%...]
       reduce.py --txt SRC DST SEED

A .txt transcript keeps its structure lines as they are (user:,
assistant:, <user_query>, </user_query>, the [Thinking] / [Tool call] /
[Tool result] markers with the tool's name, each call's argument names)
and rewrites every other character as below (an absolute path's folder
names the same way each time); the working_directory it
names, rewritten, is printed encoded as Cursor names the project folder
(every character not a letter or digit as -), to place the copy under.

Copies the schema of SRC exactly, then only the named rows (a key ending
in % is a LIKE pattern), each value rewritten so that the structure stays
and no human-written text does:

  - JSON values keep every key, the nesting, the value types, the order
    and every number, boolean and null;
  - a string Cursor encodes as JSON (JSON_KEYS: Lexical richText, a
    tool's rawArgs, params and result) is rewritten inside and serialised
    again, compactly, as Cursor writes it (JSON.stringify); JSON-looking
    text elsewhere (a file's contents) is rewritten as text;
  - UUIDs and hex ids are replaced by fresh ones, the same one for the
    same id everywhere (keys and values), so references still hold;
  - the string values of Cursor's enum fields (ENUM_KEYS: bubble types,
    modes, tool names, statuses) are kept when they are short
    identifiers; every other string is rewritten: each letter by a random
    letter of the same case, each digit by a random digit, punctuation,
    spacing and line breaks kept, so its shape (length, lines, markdown,
    paths' slashes) stays and its words do not. URI schemes (file://,
    https://) and Cursor's tags (<user_query>, <timestamp>) are kept;
  - object keys are kept when they are identifiers (Cursor's field
    names); keys that are ids are remapped like ids, and keys that are
    text (paths, symbols) or children of MAP_KEYS are rewritten;
  - inside JSON embedded in a tool call's result or params, arrays are cut to their first
    3 elements and strings to 400 characters (size only), and no enum value is kept.

The random stream is seeded (SEED) and drawn per character, not per
word, so equal words do not come out equal.
"""
import json
import os
import random
import re
import sqlite3
import sys

ENUM_KEYS = {
    "type", "tabState", "unifiedMode", "forceMode", "status", "modelName",
    "aiType", "modelType", "messageType", "dropdownAdvancedCodebaseSearchBehavior",
    "searchTypeIfCodebaseQuery", "format", "direction", "mode", "textFormat",
    "capabilityType", "userDecision", "tool", "toolName", "kind", "language",
    "languageId", "scheme", "chatDataVersion", "composerDataVersion", "style",
}
# Keys whose string values are opaque blobs of what the rest already holds
# (a tool call's toolCallBinary, the encoded conversationState): rewritten
# and cut to 200 characters.
CAP_KEYS = {"toolCallBinary", "conversationState"}
# Fields whose string Cursor itself encodes as JSON; JSON-looking text
# anywhere else (a file's contents in a tool's result) is text.
JSON_KEYS = {"richText", "initText", "rawArgs", "params", "result", "bubbleDataMap", "promptDryRunInfo"}
# (parent, key) lists cut to their first n elements (size only: 3.x's
# prompt-context tree holds hundreds of nodes).
CAP_LISTS = {("promptContextUsageTree", "nodes"): 20}
# (parent, key) pairs whose short identifier values are kept.
ENUM_IN = {("toolFormerData", "name"), ("modelConfig", "modelName")}
# Objects whose keys are data (paths, symbols, ids), not field names.
MAP_KEYS = {"symbolToURI", "codeBlockData", "originalFileStates", "inlineDiffIdMap",
            "newlyCreatedFiles", "fileSelections", "selectedDocs", "uriToDiagnostics"}
# Objects whose kebab-case keys are Cursor's names (capability hooks).
KEBAB_PARENTS = {"capabilityStatuses"}
KEBAB = re.compile(r"^[a-z]+(?:-[a-z]+)+$")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
HEX = re.compile(r"\b[0-9a-f]{32}\b|\b[0-9a-f]{40}\b|\b[0-9a-f]{64}\b")
IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]{0,48}$")
ENUMV = re.compile(r"^[A-Za-z0-9_.:\-]{0,40}$")
KEEP = re.compile(r"[a-z][a-z0-9+.\-]*://|%[0-9A-Fa-f]{2}|</?(?:user_query|timestamp|think|attached_files|user_info)>")


class Redactor:
    def __init__(self, seed, paths=False):
        self.rnd = random.Random(seed)
        self.ids = {}
        # paths: rewrite an absolute path's folder names the same way each
        # time (the .txt mode), so paths that shared a folder still do.
        self.paths, self.comps = paths, {}

    def path(self, p):
        out = []
        for c in p.split("/"):
            if c not in self.comps:
                self.comps[c] = self.scramble(c)
            out.append(self.comps[c])
        return "/".join(out)

    def new_id(self, old):
        if old not in self.ids:
            if UUID.fullmatch(old):
                h = "%032x" % self.rnd.getrandbits(128)
                new = "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], "89ab"[self.rnd.randrange(4)], h[17:20], h[20:32])
            else:
                new = "".join(self.rnd.choice("0123456789abcdef") for _ in old)
            self.ids[old] = new if old.islower() or not old.isupper() else new.upper()
        return self.ids[old]

    def ids_in(self, s):
        s = UUID.sub(lambda m: self.new_id(m.group(0).lower()), s)
        return HEX.sub(lambda m: self.new_id(m.group(0)), s)

    def scramble(self, s):
        out = []
        for c in s:
            if c.isalpha():
                if c.isupper():
                    out.append(self.rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
                else:
                    out.append(self.rnd.choice("abcdefghijklmnopqrstuvwxyz"))
            elif c.isdigit():
                out.append(self.rnd.choice("0123456789"))
            else:
                out.append(c)
        return "".join(out)

    def text(self, s):
        """Rewrite free text, keeping ids (remapped), schemes and tags."""
        parts, pos = [], 0
        spans = [(m.start(), m.end(), "id") for m in UUID.finditer(s)]
        spans += [(m.start(), m.end(), "hex") for m in HEX.finditer(s)]
        spans += [(m.start(), m.end(), "keep") for m in KEEP.finditer(s)]
        if self.paths:
            spans += [(m.start(), m.end(), "path") for m in ABSPATH.finditer(s)]
        spans.sort()
        for a, b, kind in spans:
            if a < pos:
                continue
            parts.append(self.scramble(s[pos:a]))
            tok = s[a:b]
            if kind == "path":
                parts.append(self.path(tok))
            else:
                parts.append(tok if kind == "keep" else self.new_id(tok.lower() if kind == "id" else tok))
            pos = b
        parts.append(self.scramble(s[pos:]))
        return "".join(parts)

    def string(self, s, key, shrink):
        t = s.strip()
        if t[:1] in "{[" and len(t) > 1 and key in JSON_KEYS:
            try:
                inner = json.loads(s)
            except ValueError:
                inner = None
            if isinstance(inner, (dict, list)):
                inner = self.value(inner, None, shrink or key in ("result", "params"))
                return json.dumps(inner, separators=(",", ":"), ensure_ascii=False)
        if UUID.fullmatch(s) or HEX.fullmatch(s):
            return self.new_id(s.lower() if UUID.fullmatch(s) else s)
        if key in ENUM_KEYS and ENUMV.match(s) and not shrink:
            return s  # not inside a tool's result or params: those are the person's
        if shrink and len(s) > 400:
            s = s[:400]
        if key in CAP_KEYS and len(s) > 200:
            s = s[:200]
        return self.text(s)

    def key(self, k, parent):
        if UUID.fullmatch(k) or HEX.fullmatch(k):
            return self.new_id(k.lower() if UUID.fullmatch(k) else k)
        if parent in KEBAB_PARENTS and KEBAB.match(k):
            return k
        if parent in MAP_KEYS or not IDENT.match(k):
            return self.text(k)
        return k

    def value(self, v, key, shrink=False):
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                if (key, k) in CAP_LISTS and isinstance(x, list):
                    x = x[:CAP_LISTS[(key, k)]]
                if (key, k) in ENUM_IN and isinstance(x, str) and ENUMV.match(x) and not shrink:
                    out[k] = x
                else:
                    out[self.key(k, key)] = self.value(x, k, shrink)
            return out
        if isinstance(v, list):
            if shrink:
                v = v[:3]
            return [self.value(x, key, shrink) for x in v]
        if isinstance(v, str):
            return self.string(v, key, shrink)
        return v


ABSPATH = re.compile(r"(?:(?<=://)|(?<![\w.:/]))/[^\s`'\"()<>]+")
TXT_KEEP = re.compile(r"^(?:user:|assistant:|</?user_query>)[ \t]*$")
TXT_MARK = re.compile(r"^\[(Thinking|Tool call|Tool result)\]([ \t]*)(.*)$")
TXT_ARG = re.compile(r"^(  )([A-Za-z_]+)(:[ \t]?)(.*)$")


def reduce_txt(src, dst, seed):
    r = Redactor(seed, paths=True)
    out, workdir, orig = [], "", ""
    text = open(src, encoding="utf-8").read()
    for line in text.split("\n"):
        m, a = TXT_MARK.match(line), TXT_ARG.match(line)
        if TXT_KEEP.match(line):
            out.append(line)
        elif m and m.group(1) != "Thinking" and IDENT.match(m.group(3)):
            out.append(line)
        elif m:
            out.append("[%s]%s%s" % (m.group(1), m.group(2), r.text(m.group(3))))
        elif a:
            v = r.text(a.group(4))
            if a.group(2) == "working_directory":
                workdir, orig = v, a.group(4)
            out.append(a.group(1) + a.group(2) + a.group(3) + v)
        else:
            out.append(r.text(line))
    enc = re.sub(r"[^0-9A-Za-z]", "-", workdir).lstrip("-")
    result = "\n".join(out)
    # The project folder's name (the working directory encoded) where the
    # transcript names it (~/.cursor/projects/<name>/terminals/…) is the
    # rewritten directory's encoding, as Cursor would have written it.
    old = r.comps.get(re.sub(r"[^0-9A-Za-z]", "-", orig).lstrip("-"))
    if old:
        result = result.replace("/" + old + "/", "/" + enc + "/")
    open(dst, "w", encoding="utf-8", newline="").write(result)
    print(enc)


def main():
    if sys.argv[1] == "--txt":
        return reduce_txt(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    args, paths, also, state = sys.argv[1:], False, [], None
    while args and args[0].startswith("--"):
        if args[0] == "--paths":  # absolute paths' folder names the same way each time
            paths, args = True, args[1:]
        elif args[0] == "--state":  # --state FILE: ids and folder names shared across runs (outside the repository)
            state, args = args[1], args[2:]
        elif args[0] == "--also":  # --also SRC.json=DST.json: a JSON file beside, same rewriting
            also.append(args[1].split("=", 1))
            args = args[2:]
        else:
            sys.exit("unknown option " + args[0])
    src, dst, seed, wanted = args[0], args[1], int(args[2]), args[3:]
    r = Redactor(seed, paths=paths)
    if state and os.path.exists(state):
        saved = json.load(open(state))
        r.ids, r.comps = saved["ids"], saved["comps"]
    s = sqlite3.connect("file:%s?mode=ro" % src, uri=True)
    d = sqlite3.connect(dst)
    for (sql,) in s.execute("SELECT sql FROM sqlite_master WHERE type='table' ORDER BY rowid"):
        d.execute(sql)
    rows = {}
    for w in wanted:
        table, key = w.split(":", 1)
        op = "LIKE" if key.endswith("%") else "="
        for row in s.execute("SELECT rowid, key, value FROM %s WHERE key %s ?" % (table, op), (key,)):
            rows.setdefault(table, set()).add(row)
    for table in sorted(rows):
        for _, k, v in sorted(rows[table]):
            nk = r.ids_in(k)
            if v is not None:
                if isinstance(v, bytes):
                    v = v.decode("utf-8")
                v = json.dumps(r.value(json.loads(v), None), separators=(",", ":"), ensure_ascii=False)
            d.execute("INSERT INTO %s (key, value) VALUES (?, ?)" % table, (nk, v))
    d.commit()
    d.execute("VACUUM")
    d.close()
    for a, b in also:
        v = r.value(json.load(open(a, encoding="utf-8")), None)
        open(b, "w", encoding="utf-8").write(json.dumps(v, indent=2, ensure_ascii=False))
    if state:
        json.dump({"ids": r.ids, "comps": r.comps}, open(state, "w"))
    if "IDS_OUT" in os.environ:
        # old id -> new id, for checking; never beside the sample.
        json.dump(r.ids, open(os.environ["IDS_OUT"], "w"))


if __name__ == "__main__":
    main()
