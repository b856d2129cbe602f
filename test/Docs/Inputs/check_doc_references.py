"""Checks the references between the repository's files and its docs.

Every tracked file of the git checkout at ROOT is scanned for
  - references to the background digests that live outside the repository
    (a clone cannot follow them; docs/SK16.md, docs/PyPTOModel.md and
    docs/AscendTarget.md hold the facts instead), and
  - references `docs/<name>.md` and `docs/<name>.md#<anchor>` (and, inside docs/,
    relative Markdown links `](<name>.md#<anchor>)`): the file must exist and the
    anchor must be one of its headings, spelled as GitHub spells anchors.
    Numbered sections (`docs/<name>.md §3`) are rejected: use the anchor.

Usage: check_doc_references.py ROOT. Prints one line per bad reference
(`path:line: ...`) and exits 1, or prints a summary and exits 0.
"""

import re
import subprocess
import sys
from pathlib import Path

# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile(r"(?<![\w-])(?:" + "sk16" + "|pypto-model|ascend-target" + r")\.md"
                     + "|" + "shared" + "/reference")
DOC_REF = re.compile(r"(?<![\w$}./])docs/((?:[\w-]+/)*[\w-]+\.md)(#[\w-]+)?(\s*§\s*[\d.]+)?")
REL_LINK = re.compile(r"\]\(((?:[\w-]+/)*[\w-]+\.md)(#[\w-]+)?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def anchors_of(path: Path) -> set:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to
    hyphens, repeats numbered -1, -2, ..."""
    seen, result, fenced = {}, set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if not match:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))
        slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def main() -> int:
    root = Path(sys.argv[1]).resolve()
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"],
                            capture_output=True, check=True)
    files = [f for f in listed.stdout.decode().split("\0") if f]
    anchor_cache, errors, refs = {}, [], 0

    def check(rel: str, where: str, target: Path, name: str, anchor):
        nonlocal refs
        refs += 1
        if not target.is_file():
            errors.append(f"{where}: {name} does not exist")
            return
        if anchor:
            if target not in anchor_cache:
                anchor_cache[target] = anchors_of(target)
            if anchor[1:] not in anchor_cache[target]:
                errors.append(f"{where}: {name} has no heading for {anchor}")

    for rel in files:
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary or not checked out
        in_docs = rel.startswith("docs/") and rel.endswith(".md")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{rel}:{number}"
            for match in OUTSIDE.finditer(line):
                errors.append(f"{where}: '{match.group(0)}' is outside the repository; "
                              "cite docs/SK16.md, docs/PyPTOModel.md or docs/AscendTarget.md")
            for match in DOC_REF.finditer(line):
                name = "docs/" + match.group(1)
                if match.group(3):
                    errors.append(f"{where}: '{match.group(0).strip()}' cites a numbered "
                                  "section; cite the heading's anchor (docs/<name>.md#<anchor>)")
                check(rel, where, root / name, name, match.group(2))
            if in_docs:
                for match in REL_LINK.finditer(line):
                    target = (path.parent / match.group(1)).resolve()
                    check(rel, where, target, match.group(1), match.group(2))
    for error in errors:
        print(error)
    if errors:
        return 1
    print(f"doc references: {refs} checked in {len(files)} tracked files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
