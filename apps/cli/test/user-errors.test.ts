// User mistakes as a new user makes them, against the real CLI: each is one `jepa: …` line naming
// what was wrong (never "an internal error", never a stack), exit 2, or 3 where some inputs failed.
// And text from a file never reaches the terminal raw: a model whose name and labels hold terminal
// escapes prints them escaped, while --json keeps the exact strings.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgeModel } from '@jepa/gguf';
import { encodeNpy } from '@jepa/preprocess';
import { cliMain, DEMO_MODEL, REPO_ROOT, runCli, SAMPLE_JPG } from '@jepa/testing';
import { describe, expect, it } from 'vitest';
import { displayLines, displayText } from '../src/display-text.js';

const main = cliMain();
const demo = DEMO_MODEL;
const image = SAMPLE_JPG;
const readme = join(REPO_ROOT, 'README.md');
const tmp = mkdtempSync(join(tmpdir(), 'jepa-cli-user-errors-'));
const missing = join(tmp, 'no-such-file.gguf');
const folder = join(tmp, 'a-folder');
mkdirSync(folder);
const text = join(tmp, 'notes.txt');
writeFileSync(text, 'not a model\n');
const bad = join(tmp, 'bad.jpg');
writeFileSync(bad, 'not an image');
const out = (name: string) => join(tmp, name);
// a forged V-JEPA 2 (head and masked predictor) and a LeWM: tiny, valid
const vjepa2 = forgeModel('vjepa2', { path: join(tmp, 'vjepa2.gguf') }).path;
const lewm = forgeModel('lewm', { path: join(tmp, 'lewm.gguf') }).path;
const tensor = join(tmp, 'x.npy');
writeFileSync(tensor, encodeNpy(new Float32Array(3 * 8 * 8), [1, 3, 8, 8]));
const isRoot = process.getuid?.() === 0;

const env = { ...process.env, JEPA_DEVICE: 'cpu' };

function jepa(...args: string[]) {
  const r = runCli(args, { env: { JEPA_DEVICE: 'cpu' }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The same, without blocking, so that the table's rows run side by side. */
function jepaAsync(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [main, ...args], { encoding: 'utf8', env, timeout: 60_000 }, (_error, out, err) =>
      done({ code: child.exitCode, out, err }),
    );
  });
}

/** args, exit code, what stderr says; `lines` where the command rightly prints more than the one error line. */
type Case = [name: string, args: string[], code: number, message: RegExp, lines?: 'many'];

const cases: Case[] = [
  // numbers and choices: commander's refusal, in one line, exit 2
  [
    '--threads 0',
    ['embed', '-m', demo, image, '--threads', '0'],
    2,
    /^jepa: option '-t, --threads <n>' argument '0' is invalid: expected a positive integer$/,
  ],
  [
    '--threads abc',
    ['embed', '-m', demo, image, '--threads', 'abc'],
    2,
    /^jepa: option '-t, --threads <n>' argument 'abc' is invalid: expected a positive integer$/,
  ],
  ['--batch 1.5', ['embed', '-m', demo, image, '--batch', '1.5'], 2, /argument '1\.5' is invalid: expected a positive integer$/],
  [
    '--pool max',
    ['embed', '-m', demo, image, '--pool', 'max'],
    2,
    /^jepa: option '--pool <mode>' argument 'max' is invalid: Allowed choices are mean, cls, cls\+mean, none, lewm, pooler, aligned\.$/,
  ],
  [
    '--decoder gpu',
    ['preprocess', '-m', demo, image, '-o', out('p.npy'), '--decoder', 'gpu'],
    2,
    /argument 'gpu' is invalid: Allowed choices are native, js\.$/,
  ],
  [
    '--kv-f16 with --kv-f32',
    ['embed', '-m', demo, image, '--kv-f16', '--kv-f32'],
    2,
    /^jepa: option '--kv-f16' cannot be used with option '--kv-f32'$/,
  ],
  [
    'classify -k 0',
    ['classify', '-m', vjepa2, image, '-k', '0'],
    2,
    /^jepa: option '-k, --topk <k>' argument '0' is invalid: expected a positive integer$/,
  ],
  [
    'predict --mask-index x',
    ['predict', '-m', vjepa2, image, '--context', '0:4', '--target', '4', '--mask-index', 'x'],
    2,
    /argument 'x' is invalid: expected an integer$/,
  ],
  [
    'worldmodel --seed abc',
    ['worldmodel', '-m', lewm, '--image', image, '--random-actions', '2', '--seed', 'abc'],
    2,
    /option '--seed <n>' argument 'abc' is invalid: expected an integer$/,
  ],
  [
    'worldmodel --samples -1',
    ['worldmodel', '-m', lewm, '--image', image, '--plan', '--goal', image, '--samples', '-1'],
    2,
    /argument '-1' is invalid: expected a positive integer$/,
  ],
  [
    'serve --port abc',
    ['serve', '-m', demo, '--port', 'abc'],
    2,
    /^jepa: option '--port <n>' argument 'abc' is invalid: expected a port number from 0 to 65535$/,
  ],
  ['serve --port 70000', ['serve', '-m', demo, '--port', '70000'], 2, /argument '70000' is invalid: expected a port number/],
  ['serve --max-wait-ms -5', ['serve', '-m', demo, '--max-wait-ms', '-5'], 2, /argument '-5' is invalid: expected an integer >= 0$/],
  [
    'queue add --batch 0',
    ['queue', 'add', 'q', image, '--batch', '0'],
    2,
    /^jepa: option '--batch <n>' argument '0' is invalid: expected a positive integer$/,
  ],
  [
    'worker --concurrency 0',
    ['worker', 'q', '-m', demo, '--out', folder, '--concurrency', '0'],
    2,
    /argument '0' is invalid: expected a positive integer$/,
  ],
  ['convert --dtype q9', ['convert', folder, '--dtype', 'q9'], 2, /^jepa: option '--dtype <type>' argument 'q9' is invalid: Allowed choices are /],

  // unknown and missing options, arguments and commands
  ['an unknown command', ['frobnicate'], 2, /^jepa: unknown command 'frobnicate'$/],
  ['an unknown option', ['embed', '-m', demo, image, '--bogus'], 2, /^jepa: unknown option '--bogus'$/],
  ['a misspelt option', ['info', demo, '--jsn'], 2, /^jepa: unknown option '--jsn' \(did you mean --json\?\)$/],
  ['devices --bogus', ['devices', '--bogus'], 2, /^jepa: unknown option '--bogus'$/],
  ['no -m', ['embed', image], 2, /^jepa: required option '-m, --model <gguf>' not specified$/],
  ['worker without --out', ['worker', 'q', '-m', demo], 2, /^jepa: required option '--out <dir>' not specified$/],
  ['predict without --target', ['predict', '-m', vjepa2, image, '--context', '0:4'], 2, /^jepa: required option '--target <ids>' not specified$/],
  ['info without a model', ['info'], 2, /^jepa: missing required argument 'model'$/],
  ['queue status without a name', ['queue', 'status'], 2, /^jepa: missing required argument 'name'$/],
  ['too many arguments', ['info', demo, 'extra'], 2, /^jepa: too many arguments for 'info'\. Expected 1 argument but got 2\.$/],
  ['-m with no value', ['embed', image, '-m'], 2, /^jepa: option '-m, --model <gguf>' argument missing$/],

  // files: missing, folders, not files of the kind
  ['info of a folder', ['info', folder], 2, /^jepa: .*a-folder: that is a folder; name a file$/],
  ['info of a missing file', ['info', missing], 2, /^jepa: .*no-such-file\.gguf: no such file or folder$/],
  ['info under a file', ['info', join(text, 'x.gguf')], 2, /^jepa: .*notes\.txt\/x\.gguf: a part of the path is not a folder$/],
  ['info of a text file', ['info', text], 2, /^jepa: .*notes\.txt: not a GGUF file: /],
  ['embed -m a folder', ['embed', '-m', folder, image], 2, /^jepa: -m .*a-folder: that is a folder; name a file$/],
  ['embed -m a missing file', ['embed', '-m', missing, image], 2, /^jepa: -m .*no-such-file\.gguf: no such file or folder$/],
  ['embed -m a text file', ['embed', '-m', text, image], 2, /^jepa: -m .*notes\.txt: not a GGUF file: /],
  ['preprocess -m a text file', ['preprocess', '-m', text, image, '-o', out('p.npy')], 2, /^jepa: -m .*notes\.txt: not a GGUF file: /],
  [
    'embed with nothing to embed',
    ['embed', '-m', demo],
    2,
    /^jepa: nothing to embed: give images, --video, --frames-npy, --frames-dir or --input-npy$/,
  ],
  ['embed of an empty folder', ['embed', '-m', demo, folder], 2, /^jepa: no images in the folder .*a-folder$/],
  [
    'embed of a missing list file',
    ['embed', '-m', demo, `@${join(tmp, 'list.txt')}`],
    2,
    /^jepa: cannot read the list file .*list\.txt: no such file or folder$/,
  ],
  ['embed of an unmatched glob', ['embed', '-m', demo, join(tmp, '*.png')], 2, /^jepa: no file matches .*\*\.png$/],
  [
    'embed --input-npy missing',
    ['embed', '-m', demo, '--input-npy', join(tmp, 'none.npy')],
    2,
    /^jepa: --input-npy .*none\.npy: no such file or folder$/,
  ],
  ['embed -o a folder', ['embed', '-m', demo, image, '-o', folder], 2, /^jepa: -o .*a-folder: that is a folder; name a file$/],
  ['embed -o of no format', ['embed', '-m', demo, image, '-o', out('e.png')], 2, /^jepa: -o .*e\.png: use a \.npy, \.json or \.jsonl file$/],
  [
    'preprocess a missing input',
    ['preprocess', '-m', demo, join(tmp, 'none.jpg'), '-o', out('p.npy')],
    2,
    /^jepa: .*none\.jpg: no such file or folder$/,
  ],
  ['preprocess a folder', ['preprocess', '-m', demo, folder, '-o', out('p.npy')], 2, /^jepa: .*a-folder: that is a folder; name a file$/],
  ['preprocess -o .png', ['preprocess', '-m', demo, image, '-o', out('p.png')], 2, /^jepa: -o .*p\.png: write a \.npy file$/],
  [
    'preprocess -o in a missing folder',
    ['preprocess', '-m', demo, image, '-o', join(tmp, 'nope', 'p.npy')],
    2,
    /^jepa: -o .*p\.npy: the folder .*nope does not exist$/,
  ],
  ['classify a missing image', ['classify', '-m', vjepa2, join(tmp, 'none.jpg')], 2, /^jepa: .*none\.jpg: no such file or folder$/],
  [
    'classify two inputs',
    ['classify', '-m', vjepa2, image, '--input-npy', tensor],
    2,
    /^jepa: give exactly one of an image, --video, --frames-npy, --frames-dir or --input-npy$/,
  ],
  [
    'classify --video README.md',
    ['classify', '-m', vjepa2, '--video', readme],
    2,
    /^jepa: ffprobe cannot read .*README\.md: .*Invalid data found when processing input$/,
  ],
  ['classify --logits .txt', ['classify', '-m', vjepa2, image, '--logits', out('l.txt')], 2, /^jepa: --logits .*l\.txt: write a \.npy file$/],
  ['classify without a head', ['classify', '-m', lewm, image], 2, /^jepa: .*lewm\.gguf has no classifier head$/],
  ['predict a bad id range', ['predict', '-m', vjepa2, image, '--context', '4:2', '--target', '5'], 2, /^jepa: --context 4:2: the range is empty$/],
  [
    'worldmodel a missing frame',
    ['worldmodel', '-m', lewm, '--image', join(tmp, 'none.png'), '--random-actions', '2'],
    2,
    /^jepa: --image .*none\.png: no such file or folder$/,
  ],
  ['worldmodel --plan without --goal', ['worldmodel', '-m', lewm, '--image', image, '--plan'], 2, /^jepa: --plan needs --goal$/],
  [
    'worldmodel -o .txt',
    ['worldmodel', '-m', lewm, '--image', image, '--random-actions', '2', '-o', out('w.txt')],
    2,
    /^jepa: -o .*w\.txt: write a \.npy file$/,
  ],
  [
    'worldmodel on a non-LeWM',
    ['worldmodel', '-m', demo, '--image', image, '--random-actions', '2'],
    2,
    /^jepa: -m .*untrained\.gguf: .* has no action-conditioned \(LeWM\) predictor$/,
  ],
  ['serve without models', ['serve'], 2, /^jepa: give --model FILE or --models-dir DIR$/],
  ['serve -m missing', ['serve', '-m', missing], 2, /^jepa: -m .*no-such-file\.gguf: no such file or folder$/],
  ['serve --models-dir a file', ['serve', '--models-dir', image], 2, /^jepa: --models-dir .*sample\.jpg: that is a file; name a folder$/],
  ['queue add of a missing glob', ['queue', 'add', 'q', join(tmp, '*.webm')], 2, /^jepa: no file matches /],
  ['queue collect -o a folder', ['queue', 'collect', 'q', '-o', folder], 2, /^jepa: -o .*a-folder: that is a folder; name a file$/],
  [
    'queue status without Redis',
    ['queue', 'status', 'q', '--redis', 'redis://127.0.0.1:1'],
    2,
    /^jepa: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: /,
  ],
  ['worker --out a file', ['worker', 'q', '-m', demo, '--out', image], 2, /^jepa: --out .*sample\.jpg: that is a file; name a folder$/],
  ['worker -m missing', ['worker', 'q', '-m', missing, '--out', folder], 2, /^jepa: -m .*no-such-file\.gguf: no such file or folder$/],
  ['convert a missing checkpoint', ['convert', join(tmp, 'none.safetensors')], 2, /^jepa: .*none\.safetensors/],

  // inputs that fail: reported each, and the run says so (exit 3)
  [
    'embed --video README.md',
    ['embed', '-m', demo, '--video', readme],
    3,
    /^jepa: .*README\.md: ffprobe cannot read .*README\.md: .*Invalid data found when processing input \(skipped\)$/m,
    'many',
  ],
  ['embed where every input fails', ['embed', '-m', demo, bad, join(tmp, 'gone.jpg')], 3, /^jepa: nothing embedded: all 2 inputs failed$/m, 'many'],
  ['embed where one input fails', ['embed', '-m', demo, image, bad, '-o', out('one.npy')], 3, /^jepa: 1 of 2 inputs failed$/m, 'many'],
];

if (!isRoot) {
  const locked = join(tmp, 'locked.gguf');
  writeFileSync(locked, 'x');
  chmodSync(locked, 0o000);
  cases.push(['info of an unreadable file', ['info', locked], 2, /^jepa: .*locked\.gguf: permission denied$/]);
  cases.push(['embed -m an unreadable file', ['embed', '-m', locked, image], 2, /^jepa: -m .*locked\.gguf: permission denied$/]);
}

describe('user mistakes are one-line refusals, never internal errors', () => {
  it.concurrent.each(cases)('%s', async (_name, args, code, message, lines) => {
    const r = await jepaAsync(...args);
    expect(r.code, r.err).toBe(code);
    expect(r.err.replace(/\n$/, '')).toMatch(message);
    expect(r.err).not.toMatch(/internal error/);
    expect(r.err).not.toMatch(/\n\s+at /);
    // every line the CLI writes to stderr is its own `jepa:` line
    for (const line of r.err.split('\n').slice(0, -1)) expect(line).toMatch(/^jepa: /);
    if (lines !== 'many') expect(r.err.split('\n')).toHaveLength(2);
  });

  it('a run that embedded nothing reports no rate', () => {
    const r = jepa('embed', '-m', demo, bad);
    expect(r.code).toBe(3);
    expect(r.err).not.toMatch(/items\/s|0 embedded/);
  });

  it('help is not an error; `jepa` alone prints the help and exits 2', () => {
    const help = jepa('--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Usage: jepa/);
    const sub = jepa('embed', '--help');
    expect(sub.code).toBe(0);
    expect(sub.out).toMatch(/Usage: jepa embed/);
    const none = jepa();
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/Usage: jepa/);
  });

  it('--verbose adds the stack of a refusal, still without control characters', () => {
    const r = jepa('info', missing, '--verbose');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: .*no such file or folder\n/);
    expect(r.err).toMatch(/\n\s+at /);
  });
});

describe('file text reaches the terminal escaped', () => {
  // OSC retitle, BEL, clear screen, NUL, a C1 CSI, DEL, a newline and a tab
  const evil = 'x\u001b]0;pwned\u0007\u001b[2J\u0000\u009b31m\u007fy\nz\tw';
  const evilLabel = 'cat\u001b[31m\u0000\u0085red';
  const forged = forgeModel('vjepa2', {
    path: join(tmp, 'evil.gguf'),
    edit: (h) => ({ ...h, name: evil, license: `MIT\u001b[5m`, labels: h.labels!.map((l, i) => (i === 0 ? evilLabel : `${l}\u0007`)) }),
  });
  /** Raw controls other than the newlines that end the CLI's own lines. */
  // biome-ignore lint/suspicious/noControlCharactersInRegex: it looks for raw control characters on purpose
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  it('info prints the name, license and labels escaped; --json keeps them exact', () => {
    const r = jepa('info', forged.path, '--kv');
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW);
    expect(r.err).not.toMatch(RAW);
    expect(r.out).toContain('name:       x\\u001b]0;pwned\\u0007\\u001b[2J\\u0000\\u009b31m\\u007fy\\nz\\tw\n');
    expect(r.out).toContain('cat\\u001b[31m\\u0000\\u0085red');
    expect(r.out.split('\n').filter((l) => l.startsWith('name:'))).toHaveLength(1);
    const j = JSON.parse(jepa('info', forged.path, '--json', '--no-tensors').out) as { name: string; labels: string[] };
    expect(j.name).toBe(evil);
    expect(j.labels[0]).toBe(evilLabel);
  });

  it("embed's model line is escaped", () => {
    const r = jepa('embed', '-m', forged.path, image);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^jepa: model: x\\u001b\]0;pwned/m);
    expect(r.err).not.toMatch(RAW);
    expect(r.out).not.toMatch(RAW);
  });

  it("classify's labels are escaped in the table and exact in --json", () => {
    const r = jepa('classify', '-m', forged.path, image, '-k', '5');
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW);
    expect(r.err).not.toMatch(RAW);
    expect(r.out).toContain('cat\\u001b[31m\\u0000\\u0085red');
    const j = JSON.parse(jepa('classify', '-m', forged.path, image, '-k', '5', '--json').out) as { top: { label: string }[] };
    expect(j.top.map((c) => c.label)).toContain(evilLabel);
  });

  it('a refusal quoting a tensor name from the file is escaped, on one line', () => {
    const odd = forgeModel('hfvit', { path: join(tmp, 'odd.gguf'), extraTensors: [{ name: 'enc.\u001b]0;x\u0007\u001b[2J', type: 0, shape: [4] }] });
    const r = jepa('info', odd.path);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^jepa: .*odd\.gguf: [^\n]*enc\.\\u001b\]0;x\\u0007\\u001b\[2J[^\n]*\n$/);
    expect(r.err).not.toMatch(RAW);
    expect(r.err.split('\n')).toHaveLength(2);
  });

  it('input paths the user gave are escaped in refusals too', () => {
    const r = jepa('info', join(tmp, 'a\u001b[2Jb.gguf'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/a\\u001b\[2Jb\.gguf: no such file or folder\n$/);
    expect(r.err).not.toMatch(RAW);
  });
});

describe('displayText', () => {
  it('escapes C0, DEL and C1, and leaves other text alone', () => {
    expect(displayText('a\u001b[2Jb')).toBe('a\\u001b[2Jb');
    expect(displayText('\u0000\u0007\u007f\u0080\u009b\u009f')).toBe('\\u0000\\u0007\\u007f\\u0080\\u009b\\u009f');
    expect(displayText('one\ntwo\r\tthree')).toBe('one\\ntwo\\r\\tthree');
    expect(displayText('héllo — 猫 \u00a0 \u{1f600}')).toBe('héllo — 猫 \u00a0 \u{1f600}');
    for (let c = 0; c < 0x100; c++) {
      const shown = displayText(String.fromCharCode(c));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: it looks for raw control characters on purpose
      expect(/[\u0000-\u001f\u007f-\u009f]/.test(shown), `U+${c.toString(16)}`).toBe(false);
    }
  });

  it('displayLines ends each line with the only newlines', () => {
    expect(displayLines(['a\nb', 'c'])).toBe('a\\nb\nc\n');
  });
});
