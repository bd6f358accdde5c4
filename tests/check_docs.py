#!/usr/bin/env python3
"""Checks the Markdown documentation against the tree and the build.

1. Every relative link `[text](path)` or `[text](path#anchor)` (images and reference
   definitions too) in every Markdown file resolves: the file or folder exists, and the
   anchor, when the target is Markdown, is one of its headings' GitHub slugs (lowercase,
   punctuation dropped except - and _, spaces to -, repeated slugs numbered -1, -2, ...) or
   an explicit id. Links with a scheme (http:, https:, mailto:, ...) are not followed.
2. Every program a page runs from the build's bin folder (`./build/bin/NAME` or
   `build/bin/NAME` in a code block or a code span) is one the CMake files define, and the
   build produced it: it is in --bin-dir or named as an argument. A program this
   configuration leaves out (--configured names the ones it defines: baghchal-server
   without libmicrohttpd, for one) is noted, not failed.

The files are those git knows (tracked, or new and not ignored) when the root is a git
checkout, else every *.md below it outside build*/ and node_modules/. Prints one line per
failure and exits 1; exits 0 with a summary line when everything holds; 2 on bad arguments.

Usage: check_docs.py [--root DIR] [--bin-dir DIR] [--configured NAME ...] [PROGRAM ...]
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')
# [text](target "title"): the text may hold one level of brackets, the target one level of
# parentheses; <target> allows spaces.
INLINE_LINK = re.compile(
    r'!?\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]\(\s*'
    r'(<[^<>\n]*>|(?:[^()\s\\]|\\.|\([^()\s]*\))*)'
    r'(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^()]*\)))?\s*\)')
REF_DEF = re.compile(r'^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
ATX = re.compile(r'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
LIST_ITEM = re.compile(r'^( *)([-*+]|\d{1,9}[.)])( +)')
EXPLICIT_ID = re.compile(r'<a\s[^>]*?(?:name|id)\s*=\s*["\']([^"\']+)["\']', re.I)
BIN_PROGRAM = re.compile(r'(?<![\w./$-])(?:\./)?build/bin/([A-Za-z0-9_+.-]+)')


def markdown_files(root):
    """The Markdown files to check, as paths relative to root."""
    try:
        out = subprocess.run(
            ['git', '-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.md'],
            capture_output=True, check=True).stdout.decode()
        inside = subprocess.run(['git', '-C', root, 'rev-parse', '--show-prefix'],
                                capture_output=True, check=True).stdout.decode().strip()
        if inside == '':
            files = [f for f in out.split('\0') if f]
            return sorted(set(f for f in files if os.path.isfile(os.path.join(root, f))))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if not d.startswith('build') and d != 'node_modules' and not d.startswith('.')]
        for name in filenames:
            if name.endswith('.md'):
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(files)


def split_code(lines):
    """For each line, (is_code, text): fenced and indented code blocks are code; elsewhere the
    text is the line with its code spans blanked out, and the spans are returned apart."""
    result = []
    fence = None
    list_indent = 0          # content column of the list item the text is in, 0 outside lists
    prev_blank = True
    prev_code = False
    for line in lines:
        if fence:
            m = FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                    line.strip() == m.group(1):
                fence = None
            result.append((True, line, []))
            prev_code, prev_blank = True, False
            continue
        m = FENCE.match(line)
        if m:
            fence = m.group(1)
            result.append((True, line, []))
            prev_code, prev_blank = True, False
            continue
        if not line.strip():
            result.append((prev_code, line, []))
            prev_blank = True
            continue
        indent = len(line) - len(line.lstrip(' '))
        if indent >= list_indent + 4 and (prev_blank or prev_code):
            result.append((True, line, []))
            prev_code, prev_blank = True, False
            continue
        item = LIST_ITEM.match(line)
        if item:
            list_indent = len(item.group(0))
        elif indent == 0 and prev_blank:
            list_indent = 0
        spans = [m.group(2) for m in CODE_SPAN.finditer(line)]
        text = CODE_SPAN.sub(lambda m: ' ' * len(m.group(0)), line)
        result.append((False, text, spans))
        prev_code, prev_blank = False, False
    return result


def slug_text(heading):
    """The heading's text as GitHub renders it, before the slug: code spans as they are,
    elsewhere links and images by their text, no inline HTML and no emphasis marks."""
    parts = []
    last = 0
    for m in CODE_SPAN.finditer(heading):
        parts.append(plain_text(heading[last:m.start()]))
        parts.append(m.group(2))
        last = m.end()
    parts.append(plain_text(heading[last:]))
    return ''.join(parts)


def plain_text(t):
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', t)
    t = re.sub(r'<[^>]+>', '', t)
    return t.replace('*', '')


def slugify(heading):
    out = []
    for ch in slug_text(heading).strip().lower():
        if ch in '-_':
            out.append(ch)
        elif ch == ' ':
            out.append('-')
        elif unicodedata.category(ch)[0] in 'LMN':
            out.append(ch)
    return ''.join(out)


def anchors_of(path, cache):
    if path in cache:
        return cache[path]
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    anchors = set()
    counts = {}

    def add(heading):
        base = slugify(heading)
        n = counts.get(base, 0)
        counts[base] = n + 1
        anchors.add(base if n == 0 else '%s-%d' % (base, n))

    parsed = split_code(lines)
    for i, (is_code, text, _) in enumerate(parsed):
        if is_code:
            continue
        for m in EXPLICIT_ID.finditer(lines[i]):
            anchors.add(m.group(1))
        m = ATX.match(lines[i])
        if m:
            add(m.group(2) or '')
            continue
        if i > 0 and SETEXT.match(lines[i]) and not parsed[i - 1][0] and lines[i - 1].strip() \
                and not ATX.match(lines[i - 1]) and not lines[i - 1].lstrip().startswith('|') \
                and (lines[i].strip()[0] == '=' or not LIST_ITEM.match(lines[i - 1])):
            add(lines[i - 1].strip())
    cache[path] = anchors
    return anchors


def cmake_programs(root):
    """The executables the CMake files define: add_executable's names, with ${var} expanded
    over the items of the foreach() that sets var, written out or from a set() of literal
    words (names from globs are left out)."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if not d.startswith('build') and d != 'node_modules' and not d.startswith('.')]
        for fname in filenames:
            if fname != 'CMakeLists.txt' and not fname.endswith('.cmake'):
                continue
            with open(os.path.join(dirpath, fname), encoding='utf-8', errors='replace') as f:
                text = re.sub(r'#[^\n]*', '', f.read())
            lists = {m.group(1): m.group(2).split()
                     for m in re.finditer(r'\bset\s*\(\s*(\w+)\s+([^)$"]*)\)', text, re.I)}
            loops = []       # the foreach() loops open at this point: (variable, items)
            for m in re.finditer(r'\b(foreach|endforeach|add_executable)\s*\(([^)]*)\)', text, re.I):
                command, words = m.group(1).lower(), m.group(2).split()
                if command == 'foreach':
                    items = words[1:]
                    listed = re.fullmatch(r'\$\{(\w+)\}', items[0]) if len(items) == 1 else None
                    if listed and listed.group(1) in lists:
                        items = lists[listed.group(1)]
                    loops.append((words[0] if words else '', items))
                elif command == 'endforeach':
                    if loops:
                        loops.pop()
                elif words and not (len(words) > 1 and words[1] in ('IMPORTED', 'ALIAS')):
                    name = words[0]
                    var = re.search(r'\$\{(\w+)\}', name)
                    if not var:
                        names.add(name)
                        continue
                    # The innermost loop over that variable, when it lists its items.
                    items = next((it for v, it in reversed(loops) if v == var.group(1)), [])
                    if items and items[0] in ('IN', 'RANGE'):
                        items = []
                    for item in items:
                        if '$' not in item:
                            names.add(name.replace(var.group(0), item))
    return names


def main():
    ap = argparse.ArgumentParser(description='Checks the Markdown links and the programs the pages run.')
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--bin-dir', help="the build's bin folder: the programs it produced")
    ap.add_argument('--configured', nargs='*', metavar='NAME',
                    help='the executables this configuration defines (others are noted as left out)')
    ap.add_argument('programs', nargs='*', help='more programs the build produced')
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print('check_docs: no folder %s' % root)
        return 2

    failures = []
    notes = []
    cache = {}
    links = 0
    commands = {}     # program -> first (file, line)
    files = markdown_files(root)
    for rel in files:
        path = os.path.join(root, rel)
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        for i, (is_code, text, spans) in enumerate(split_code(lines)):
            where = '%s:%d' % (rel, i + 1)
            code = [text] if is_code else spans
            for c in code:
                for m in BIN_PROGRAM.finditer(c):
                    commands.setdefault(m.group(1), where)
            if is_code:
                continue
            targets = [m.group(2) for m in INLINE_LINK.finditer(text)]
            m = REF_DEF.match(text)
            if m:
                targets.append(m.group(2))
            for target in targets:
                target = target.strip()
                if target.startswith('<') and target.endswith('>'):
                    target = target[1:-1]
                if not target or SCHEME.match(target):
                    continue
                links += 1
                file_part, _, anchor = target.partition('#')
                file_part = urllib.parse.unquote(file_part)
                anchor = urllib.parse.unquote(anchor)
                if file_part == '':
                    dest = path
                elif file_part.startswith('/'):
                    dest = os.path.join(root, file_part.lstrip('/'))
                else:
                    dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(dest):
                    failures.append('%s: link %s: no file %s' % (where, target, os.path.relpath(dest, root)))
                    continue
                if anchor and dest.endswith('.md') and os.path.isfile(dest):
                    if anchor not in anchors_of(dest, cache):
                        failures.append('%s: link %s: %s has no heading with the anchor #%s'
                                        % (where, target, os.path.relpath(dest, root), anchor))

    defined = cmake_programs(root)
    produced = set(args.programs)
    if args.bin_dir:
        if not os.path.isdir(args.bin_dir):
            failures.append('--bin-dir %s: no such folder' % args.bin_dir)
        else:
            for name in os.listdir(args.bin_dir):
                p = os.path.join(args.bin_dir, name)
                if os.path.isfile(p) and os.access(p, os.X_OK):
                    produced.add(name)
    check_built = bool(args.bin_dir or args.programs)
    configured = set(args.configured) if args.configured is not None else None
    def place(item):
        file, _, line = item[1].rpartition(':')
        return (file, int(line))
    for name, where in sorted(commands.items(), key=place):
        if name not in defined:
            near = difflib.get_close_matches(name, sorted(defined), 1)
            failures.append('%s: build/bin/%s: no CMake file defines a program %s%s'
                            % (where, name, name, ' (%s?)' % near[0] if near else ''))
        elif check_built and name not in produced:
            if configured is not None and name not in configured:
                notes.append('note: %s: build/bin/%s: left out of this configuration, not checked'
                             % (where, name))
            else:
                failures.append('%s: build/bin/%s: the build did not produce %s%s'
                                % (where, name, name,
                                   ' (not in %s)' % args.bin_dir if args.bin_dir else ''))

    for line in notes:
        print(line)
    for line in failures:
        print(line)
    if failures:
        print('check_docs: %d failure(s)' % len(failures))
        return 1
    print('check_docs: %d Markdown files, %d relative links, %d programs run from build/bin: ok'
          % (len(files), links, len(commands)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
