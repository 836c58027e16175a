#!/usr/bin/env python3
"""Checks the rules of docs/ARCHITECTURE.md that a program can check, over the tracked files:

  files      no file over 500 lines, tests included
  functions  no C++ or Python function over 80 lines (signature to closing brace), tests included
  layers     #include "gridcoll/<folder>/..." only of a folder at or below the includer's layer;
             no #include that climbs out of its folder with '../'
  paths      no tracked file names a path outside the repository or of one machine

Prints one line per finding as file:line: what, then a summary; exits 1 when anything is found.
Usage: scripts/check_layout.py [--repo DIR] [--only files,functions,layers,paths]"""
from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80

# What each top-level folder may include from (its own folder always). The order of docs/ARCHITECTURE.md.
LAYERS = {
    "algorithms": set(),
    "system": {"algorithms"},
    "platforms": {"algorithms"},
    "runtime": {"algorithms", "system"},
    "sim": {"algorithms", "system", "platforms", "runtime"},
    "emulator": {"algorithms", "system", "platforms", "runtime"},
    "backends": {"algorithms", "system", "platforms", "runtime", "sim", "emulator"},
    "cli": {"algorithms", "system", "platforms", "runtime", "sim", "emulator", "backends"},
    "python": {"algorithms", "system", "platforms", "runtime", "sim", "emulator", "backends"},
    "validation": {"algorithms", "system", "platforms", "runtime", "sim", "emulator", "backends"},
}
LAYER_FREE = {"tests"}  # tests may include from every layer
CODE_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".py"}
MACHINE_PATHS = re.compile(r"\.\./shared/|/work/|/root/|/home/[a-z]")


def tracked(repo: Path) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    return [Path(p) for p in out.decode().split("\0") if p]


def blank_directives(text: str) -> str:
    """The text with preprocessor lines (and their continuations) blanked, newlines kept: an
    `#if defined(X)` is no function header."""
    out, continued = [], False
    for line in text.split("\n"):
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.endswith("\\")
        out.append("" if directive else line)
    return "\n".join(out)


def strip_cpp(text: str) -> str:
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separators
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE = re.compile(r"^(template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern)\b")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|return)\b[^;]*$")


def classify(header: str) -> str:
    """What a '{' opens at namespace or class scope, from the text since the last ';', '{' or '}'."""
    h = " ".join(header.split())
    while True:  # access labels ("public:") are not part of what follows
        m = re.match(r"^(public|private|protected)\s*:\s*", h)
        if not m:
            break
        h = h[m.end():]
    if SCOPE.match(h) and "(" not in h.split("{")[0].split(":")[0]:
        return "scope"
    if "(" in h and not h.endswith("=") and not CONTROL.match(h):
        return "function"
    return "block"


def cpp_functions(text: str):
    """(name, first line, last line) of every function body at namespace or class scope."""
    code = strip_cpp(blank_directives(text))
    stack = []  # per open brace: (kind, first line, name)
    stmt_start = 0
    for i, c in enumerate(code):
        if c == ";":
            stmt_start = i + 1
        elif c == "{":
            header = code[stmt_start:i]
            inside = any(k == "function" for k, _, _ in stack)
            kind = "block" if inside else classify(header)
            lead = len(header) - len(header.lstrip())
            first = code.count("\n", 0, stmt_start + lead) + 1
            words = header.split("(")[0].split()
            stack.append((kind, first, words[-1] if words else "?"))
            stmt_start = i + 1
        elif c == "}":
            if stack:
                kind, first, name = stack.pop()
                if kind == "function":
                    yield name, first, code.count("\n", 0, i) + 1
            stmt_start = i + 1


def py_functions(text: str):
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno


def check_files(repo, files, out):
    for f in files:
        if not (repo / f).is_file():
            continue
        try:
            n = (repo / f).read_text(errors="replace").count("\n")
        except OSError:
            continue
        if n > MAX_FILE_LINES:
            out.append(f"{f}:1: {n} lines (at most {MAX_FILE_LINES})")


def check_functions(repo, files, out):
    for f in files:
        if f.suffix not in CODE_SUFFIXES:
            continue
        text = (repo / f).read_text(errors="replace")
        try:
            found = list(py_functions(text) if f.suffix == ".py" else cpp_functions(text))
        except SyntaxError as e:
            out.append(f"{f}:{e.lineno}: cannot parse: {e.msg}")
            continue
        for name, first, last in found:
            if last - first + 1 > MAX_FUNCTION_LINES:
                out.append(f"{f}:{first}: function {name} has {last - first + 1} lines (at most {MAX_FUNCTION_LINES})")


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check_layers(repo, files, out):
    for f in files:
        top = f.parts[0]
        if top in LAYER_FREE or f.suffix not in {".cpp", ".hpp", ".h", ".cc"}:
            continue
        allowed = LAYERS.get(top)
        for lineno, line in enumerate((repo / f).read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target.startswith("gridcoll/"):
                folder = target.split("/")[1]
                if folder not in LAYERS:
                    out.append(f"{f}:{lineno}: #include \"{target}\": public headers are gridcoll/<folder>/..., "
                               f"and '{folder}' is no top-level folder")
                elif allowed is not None and folder != top and folder not in allowed:
                    out.append(f"{f}:{lineno}: {top}/ includes {folder}/ ({target}), which is above it")
            elif ".." in Path(target).parts:
                resolved = (repo / f.parent / target).resolve()
                try:
                    other = resolved.relative_to(repo.resolve()).parts[0]
                except ValueError:
                    other = "?"
                if other != top:
                    out.append(f"{f}:{lineno}: #include \"{target}\" climbs out of {top}/; include gridcoll/{other}/...")


def check_paths(repo, files, out):
    for f in files:
        if f == Path("scripts/check_layout.py") or not (repo / f).is_file():
            continue
        try:
            text = (repo / f).read_text()
        except (OSError, UnicodeDecodeError):
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            m = MACHINE_PATHS.search(line)
            if m:
                out.append(f"{f}:{lineno}: names '{m.group(0)}', a path outside the repository or of one machine")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--only", default="files,functions,layers,paths")
    a = ap.parse_args()
    repo = Path(a.repo)
    files = tracked(repo)
    checks = {"files": check_files, "functions": check_functions, "layers": check_layers, "paths": check_paths}
    out: list[str] = []
    for name in a.only.split(","):
        if name not in checks:
            print(f"check_layout: unknown check '{name}' (valid: {', '.join(checks)})", file=sys.stderr)
            return 2
        checks[name](repo, files, out)
    for line in out:
        print(line)
    print(f"check_layout: {len(out)} finding(s) in {len(files)} tracked files ({a.only})")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
