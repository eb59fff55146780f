#!/usr/bin/env python3
"""Tidies the mdoc page swift-argument-parser's generator writes (scripts/man runs it).

The generator copies each command's discussion as it is written: blank lines between its
paragraphs, which mdoc warns about ("Empty input line") and renders as nothing, and example
lines indented by two spaces, which mdoc fills into one running line. Blank lines become
paragraph breaks (.Pp) and each run of indented lines a literal display (.Bd -literal).
Run on a page already tidied, it changes nothing.

    scripts/testing/man-tidy.py docs/man/rnmctl.1
"""
import sys

path = sys.argv[1]
lines = open(path, encoding="utf-8").read().split("\n")
out = []
literal = False
for line in lines[:-1] if lines and lines[-1] == "" else lines:
    indented = line.startswith("  ") and line.strip() != ""
    if indented and not literal:
        out.append(".Bd -literal -offset indent")
        literal = True
    elif not indented and literal:
        out.append(".Ed")
        literal = False
    if indented:
        out.append(line[2:])
    elif line.strip() == "":
        out.append(".Pp")
    else:
        out.append(line)
if literal:
    out.append(".Ed")
open(path, "w", encoding="utf-8").write("\n".join(out) + "\n")
