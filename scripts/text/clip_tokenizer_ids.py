#!/usr/bin/python3
"""The reference for @jepa/text: OpenAI CLIP's tokenizer (clip/simple_tokenizer.py, as dinov3's
dinov3/eval/text/tokenizer.py uses it), written here from its semantics, and the ids it gives for a
list of hard strings, into fixtures/text/clip-ids.json.

It runs on Debian's python3 with python3-regex (the `regex` module CLIP imports, for \\p{L}/\\p{N});
html.unescape, unicodedata and gzip are Python's own. Debian has no ftfy, so ftfy.fix_text is the
subset that @jepa/text documents (ftfy 6's fixes that need no encoding guess), written from ftfy's
semantics: entity unescape (auto), terminal escapes, latin ligatures, character width, curly quotes,
line breaks, control characters, NFC, to a fixed point, line by line. Mojibake repair
(fix_encoding, fix_c1_controls) is left out, in both.

Usage: /usr/bin/python3 scripts/text/clip_tokenizer_ids.py [VOCAB.gz]
(default VOCAB: ../shared/reference/clip-bpe/bpe_simple_vocab_16e6.txt.gz)
"""
import gzip
import html
import html.entities
import json
import os
import sys
import unicodedata

import regex

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOCAB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, '..', 'shared', 'reference', 'clip-bpe', 'bpe_simple_vocab_16e6.txt.gz')
OUT = os.path.join(ROOT, 'fixtures', 'text', 'clip-ids.json')
OUT_RANDOM = os.path.join(ROOT, 'fixtures', 'text', 'clip-ids-random.json')

# ---- ftfy 6's fix_text, the subset without encoding guesses ------------------------------------

def ftfy_entities():
    table = {}
    for name, char in html.entities.html5.items():
        if not name.endswith(';'):
            continue
        table['&' + name] = char
        if name == name.lower():
            upper = '&' + name.upper()
            if html.unescape(upper) == upper:  # an upper-cased name that means nothing else
                table[upper] = char.upper()
    return table

FTFY_ENTITIES = ftfy_entities()
ENTITY_RE = regex.compile(r'&#?[0-9A-Za-z]{1,24};')
ANSI_RE = regex.compile('\x1b\\[((?:\\d|;)*)([a-zA-Z])')
LIGATURES = {ord(c): unicodedata.normalize('NFKC', c) for c in 'ĲĳĿŀŉǄǅǆǇǈǉǊǋǌǱǲǳﬀﬁﬂﬃﬄﬅﬆ'}
WIDTH = {0x3000: ' '}
for cp in range(0xFF01, 0xFFF0):
    if unicodedata.normalize('NFKC', chr(cp)) != chr(cp):
        WIDTH[cp] = unicodedata.normalize('NFKC', chr(cp))
CONTROL = {cp: None for cp in [*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, *range(0x206A, 0x2070), 0xFEFF, *range(0xFFF9, 0xFFFD)]}


def entity_fix(match):
    text = match.group(0)
    if text in FTFY_ENTITIES:
        return FTFY_ENTITIES[text]
    if text.startswith('&#'):
        out = html.unescape(text)
        return text if ';' in out else out
    return text


def fix_segment(text, unescape):
    while True:
        before = text
        if unescape:
            text = ENTITY_RE.sub(entity_fix, text)
        text = text.translate(LIGATURES)
        text = text.translate(WIDTH)
        text = regex.sub('[\u02bc\u2018-\u201b]', "'", regex.sub('[\u201c-\u201f]', '"', text))
        text = text.replace('\r\n', '\n').replace('\r', '\n').replace('\u2028', '\n').replace('\u2029', '\n').replace('\u0085', '\n')
        text = ANSI_RE.sub('', text)
        text = text.translate(CONTROL)
        text = unicodedata.normalize('NFC', text)
        if text == before:
            return text


def fix_text(text):
    out, pos, unescape = [], 0, True
    while pos < len(text):
        end = text.find('\n', pos) + 1 or len(text)
        segment = text[pos:end]
        if '<' in segment:
            unescape = False  # ftfy's 'auto': no entity fix once a line holds '<' (it stays off)
        out.append(fix_segment(segment, unescape))
        pos = end
    return ''.join(out)

# ---- CLIP's simple_tokenizer -------------------------------------------------------------------

def byte_table():
    keep = [*range(ord('!'), ord('~') + 1), *range(ord('¡'), ord('¬') + 1), *range(ord('®'), ord('ÿ') + 1)]
    chars = list(keep)
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


class Clip:
    def __init__(self, path, n_merges=49152 - 256 - 2):
        """n_merges: CLIP reads 48,894; a tiny test vocabulary reads fewer (ids: 512 byte pieces, the merges, the
        two special tokens)."""
        self.bytes = byte_table()
        lines = gzip.open(path).read().decode('utf-8').split('\n')
        merges = [tuple(line.split()) for line in lines[1:n_merges + 1]]
        vocab = list(self.bytes.values())
        vocab += [v + '</w>' for v in vocab]
        vocab += [''.join(m) for m in merges]
        vocab += ['<|startoftext|>', '<|endoftext|>']
        self.ids = {v: i for i, v in enumerate(vocab)}
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.special = {'<|startoftext|>', '<|endoftext|>'}
        self.pat = regex.compile(r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+""", regex.IGNORECASE)

    def bpe(self, token):
        if token in self.special:
            return [token]
        word = [*token[:-1], token[-1] + '</w>']
        while len(word) > 1:
            pairs = {(word[i], word[i + 1]) for i in range(len(word) - 1)}
            best = min(pairs, key=lambda p: self.ranks.get(p, float('inf')))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                    merged.append(word[i] + word[i + 1])
                    i += 2
                else:
                    merged.append(word[i])
                    i += 1
            word = merged
        return word

    def encode(self, text):
        text = html.unescape(html.unescape(fix_text(text))).strip()
        text = regex.sub(r'\s+', ' ', text).strip().lower()
        ids = []
        for token in self.pat.findall(text):
            mapped = ''.join(self.bytes[b] for b in token.encode('utf-8'))
            ids += [self.ids[piece] for piece in self.bpe(mapped)]
        return ids

    def tokens(self, text, context=77):
        """The row before its padding (ids may be 0: '!' is id 0)."""
        tokens = [self.ids['<|startoftext|>'], *self.encode(text), self.ids['<|endoftext|>']]
        if len(tokens) > context:
            tokens = tokens[:context]
            tokens[-1] = self.ids['<|endoftext|>']
        return tokens

    def tokenize(self, text, context=77):
        tokens = self.tokens(text, context)
        return tokens + [0] * (context - len(tokens))


STRINGS = [
    'a photo of a dog',
    'A RED car, parked at night!!',
    '',
    '   ',
    'Hello, World! How are YOU?',
    "don't stop, it's fine, we'll see, they're here, I've been, I'm ok, you'd know",
    "DON'T SHOUT, IT'S LOUD",
    "rock 'n' roll, 'quoted', o'clock",
    'it\u2019s a \u201cquoted\u201d word',
    "it'\u017f long s",
    'in 2024 pi was 3.14, not 3,15; 1st 2nd 100%',
    '\u00bd \u00b2 \u2167 \u0663\u0664',
    'fish &amp; chips',
    'i &lt;3 you &gt; them',
    '&amp;amp; twice, &amp;amp;amp; thrice, &amp;amp;amp;amp;amp; five',
    '&#39;s &#x27;t &#8217;ll &quot;q&quot; &copy; &nbsp;x &eacute;t&eacute;',
    '&amp no semicolon, &ampere; &notit; &AMP; &EACUTE; &#0; &#x110000; &#128; &bogus;',
    'a <b>bold</b> &amp; tag',
    'line one\nline <two>\n&amp; line three',
    '<p>&amp;amp; and &amp;lt;3</p>',
    'line <one>\n&amp;amp;amp; after it',
    '\uff06amp; \uff06lt;3 &SZLIG; &NTILDE;',
    'tabs\tand\nnew\r\nlines\r  and   spaces \u3000 ideographic',
    '\u0085next\u2028line\u2029para\x0bvt\x0cff\x1cfs\ufeffbom\u00a0nbsp\u200bzwsp',
    '\x1b[31mred\x1b[0m text\x07bell\x00nul',
    '\uff21\uff22\uff23 \uff11\uff12\uff13\uff01 \uff71\uff72',
    '\ufb01ne \ufb02ow \u0132s',
    'caf\u00e9 cafe\u0301 na\u00efve \u00c9COLE \u00dcber stra\u00dfe',
    '\u0130stanbul \u03a3\u039f\u03a6\u039f\u03a3 \u1e9e',
    '\u6771\u4eac\u30bf\u30ef\u30fc\u306e\u591c\u666f \ud55c\uad6d\uc5b4 \u4e2d\u6587\u5b57',
    '\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd \u0928\u092e\u0938\u094d\u0924\u0947',
    'emoji \U0001f600\U0001f436 \U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f \U0001f1eb\U0001f1f7 \U0001f44d\U0001f3fd',
    'ma\u00c3\u00b1ana \u00e2\u20ac\u0153mojibake\u00e2\u20ac\u009d (left as it is)',
    'a<|endoftext|>b <|STARTOFTEXT|> <|startoftext|>',
    'http://example.com/a_b-c?d=e&f=g#h user@mail.org',
    '... --- !!! ??? ((( ))) $$$ ___ ~~~',
    'supercalifragilisticexpialidocious antidisestablishmentarianism',
    ' '.join(['word'] * 80),
    ' '.join(['a photo of a red car at night'] * 12),
    ' '.join(['x'] * 75),
    ' '.join(['x'] * 76),
]


# Fragments that seeded random strings are drawn from: words in both cases, contractions, digits,
# punctuation, entities (one and two levels, named, numeric, unknown), every kind of whitespace, control
# characters, '<' (which turns ftfy's entity fix off), curly quotes, ligatures, full-width forms, accents
# composed and not, Greek, Cyrillic, CJK, Hangul, Arabic, Devanagari, emoji with joiners and modifiers.
FRAGMENTS = [
    'a', 'the', 'Photo', 'DOG', 'cat', 'running', 'unbelievable', 'xylophone', 'q', 'zzz', 'night',
    "'s", "'T", "'re", "'VE", "'m", "'ll", "'d", "n't", "'", '"', '`',
    '0', '7', '42', '2024', '3.14', '1,000', '½', '²', 'Ⅻ', '٣',
    '.', ',', '!', '?', '...', '--', '(', ')', '[', ']', '{', '}', '/', '\\', '@', '#', '$', '%', '^', '*', '_', '+', '=', '|', '~', ':', ';',
    '&amp;', '&amp;amp;', '&lt;', '&gt;', '&quot;', '&#39;', '&#x27;', '&#8217;', '&eacute;', '&EACUTE;', '&amp', '&copy', '&notin;', '&bogus;', '&#0;', '&#128;', '&',
    ' ', '  ', '\t', '\n', '\r\n', '\r', '\x0b', '\x0c', '\x85', '\xa0', '\u2028', '\u2029', '\u3000', '\u200b', '\ufeff', '\x1c', '\x1f',
    '\x00', '\x07', '\x1b[1m', '\x7f', '\u206a', '\ufffc',
    '<', '>', '<b>', '</b>', '<|endoftext|>', '<|startoftext|>',
    '\u2018', '\u2019', '\u201c', '\u201d', '\u02bc', '\ufb01', '\ufb02', '\u0132', '\u01c6',
    '\uff21', '\uff4d', '\uff10', '\uff01', '\uff06', '\uff71', '\uffe5',
    'é', 'e\u0301', 'Ö', 'ß', 'ẞ', 'İ', 'ſ', 'ç', 'ñ', 'Ω', 'Σ', 'ΣΑΣ', 'Москва', 'ЖУК',
    '東京', '猫', 'の', 'タワー', '한국', '中文', 'مرحبا', 'नमस्ते', 'ไทย',
    '😀', '🐶', '👨\u200d👩\u200d👧', '❤️', '🇫🇷', '👍🏽', '\U0001d54f', '\u0300',
]


def random_strings(count, seed=51):
    import random
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.choice([1, 2, 3, 5, 8, 13, 40])
        out.append(''.join(rng.choice(FRAGMENTS) + rng.choice(['', '', ' ']) for _ in range(n)))
    return out


def main():
    clip = Clip(VOCAB)
    assert clip.tokenize('a photo of a dog')[:7] == [49406, 320, 1125, 539, 320, 1929, 49407]
    cases = [{'text': s, 'ids': clip.tokenize(s)} for s in STRINGS]
    with open(OUT, 'w', encoding='utf-8') as f:
        json.dump({
            'source': 'scripts/text/clip_tokenizer_ids.py (CLIP simple_tokenizer semantics, python3-regex '
                      + regex.__version__ + ', Python ' + sys.version.split()[0] + ', Unicode ' + unicodedata.unidata_version + ')',
            'vocab': 'bpe_simple_vocab_16e6.txt.gz',
            'contextLength': 77,
            'cases': cases,
        }, f, ensure_ascii=True, indent=1)
        f.write('\n')
    print(f'{OUT}: {len(cases)} cases')
    rows = [{'text': t, 'ids': clip.tokens(t)} for t in random_strings(500)]
    with open(OUT_RANDOM, 'w', encoding='utf-8') as f:
        json.dump({
            'source': 'scripts/text/clip_tokenizer_ids.py: random_strings(500, seed=51), ids unpadded (the row before its 0s)',
            'contextLength': 77,
            'cases': rows,
        }, f, ensure_ascii=True, indent=0)
        f.write('\n')
    print(f'{OUT_RANDOM}: {len(rows)} cases')


if __name__ == '__main__':
    main()
