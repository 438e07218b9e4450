#!/usr/bin/python3
"""Write packages/text/src/html-entities.ts: the HTML5 named character references, as Python's
html.entities.html5 holds them (the WHATWG table; the names without ';' are the legacy ones that
html.unescape also decodes), and html.unescape's tables of invalid numeric references. Python's html.unescape and ftfy's entity fix both read this table, so the
TypeScript clean-up reads the same one.

Usage: /usr/bin/python3 scripts/text/html_entities.py
"""
import html
import html.entities
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'packages', 'text', 'src', 'html-entities.ts')

lines = [
    '// Written by scripts/text/html_entities.py from Python ' + sys.version.split()[0] + "'s html.entities.html5; do not edit.",
    '/** The HTML5 named character references: name (with its ";" where it has one) to text. */',
    'export const HTML5_ENTITIES: ReadonlyMap<string, string> = new Map([',
]
for name in sorted(html.entities.html5):
    lines.append('  [' + json.dumps(name) + ', ' + json.dumps(html.entities.html5[name]) + '],')
lines.append(']);')
lines.append('')
lines.append("/** html.unescape's numeric references that decode to another character (windows-1252 for 0x80..0x9f). */")
lines.append('export const INVALID_CHARREFS: ReadonlyMap<number, string> = new Map([')
for num in sorted(html._invalid_charrefs):
    lines.append('  [' + hex(num) + ', ' + json.dumps(html._invalid_charrefs[num]) + '],')
lines.append(']);')
lines.append('')
lines.append("/** html.unescape's numeric references that decode to nothing. */")
lines.append('export const INVALID_CODEPOINTS: ReadonlySet<number> = new Set([' + ', '.join(hex(c) for c in sorted(html._invalid_codepoints)) + ']);')
with open(OUT, 'w', encoding='utf-8') as f:
    f.write('\n'.join(lines) + '\n')
print(f'{OUT}: {len(html.entities.html5)} entities')
