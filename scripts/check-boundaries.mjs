#!/usr/bin/env node
// The import boundaries between the workspace packages (docs/architecture.md), checked on the source:
//   internals  a package is imported only by its name or a subpath its package.json exports, never its
//              src/ or dist/, and no relative path leaves the package it is written in (tests too);
//   layers     a package's own code (not its tests) imports only packages in lower layers (LAYERS);
//   front ends @jepa/server only from apps/cli's serve command, apps/bench, and MCP's tests (which hold its
//              tools' answers against the HTTP routes');
//   testing    @jepa/testing only from test files, scripts and apps/bench;
//   cycles     no circular imports among a package's src/ files, type-only and dynamic ones included
//              (a cycle through types alone still ties the files' designs together);
//   one path   the engine, the corpus jobs, the front ends and the CLI load and run models through
//              @jepa/session, never Model.load or a context of their own (ONE_PATH);
//   environment the run-time switches are read once, in graph's runtime-options.ts: no other source of
//              the packages that run graphs reads process.env (RUNTIME_PACKAGES).
// Usage: node scripts/check-boundaries.mjs [root]; exits 1 and lists the violations when there are any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Bottom first: a package may import the packages of lower layers only. */
export const LAYERS = [
  ['@jepa/errors'],
  // CLIP's tokenizer for dino.txt's text tower: pure TypeScript, under everything that reads text
  ['@jepa/text'],
  // the index of embeddings on disk: a library of its own, under the engine that searches and fills it
  ['@jepa/search'],
  ['@jepa/gguf', '@jepa/preprocess', '@jepa/addon', '@jepa/addon-linux-x64'],
  ['@jepa/native'],
  ['@jepa/graph', '@jepa/input'],
  // the quantizer (quantizeFile, and the jepa-quantize command on it) beside the converter: the hub
  // quantizes the GGUFs it converts (hf:ORG/NAME:q8_0)
  ['@jepa/worldmodel', '@jepa/convert', '@jepa/quantize'],
  // models by name: pulled through the Hugging Face cache and converted by @jepa/convert
  ['@jepa/hub'],
  // a loaded model with its input, contexts and pooling: what the engine, the corpus jobs and the CLI run
  ['@jepa/session'],
  // the engine under the server and MCP, and the corpus jobs: both run models through sessions
  ['@jepa/engine', '@jepa/corpus'],
  // the front ends, and the test kit beside them (which no front end's code may import)
  ['@jepa/server', '@jepa/mcp', '@jepa/testing'],
  // the apps: jepa-bench runs the other two, and the package `jepa` carries all three commands
  ['@jepa/cli'],
  ['@jepa/bench'],
  ['jepa'],
];

/** Imports let through for now, each with its reason: `file` and the exact specifier. */
export const ALLOWED = [
  // the resampler's parity test writes planes with the very function the TypeScript recipe uses, which
  // @jepa/preprocess does not export; to go when the package exports it (or the test kit carries it)
  { file: 'packages/native/test/resample.test.ts', specifier: '../../preprocess/src/normalize.js' },
];

const WORKSPACE_DIRS = ['packages', 'apps'];
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'ggml', 'tmp', 'coverage']);
/** The code that runs models through a session: no Model.load, createContext, createHeadContext, createPredictorContext, createTextContext or createAlignContext. */
const ONE_PATH = [/^packages\/(engine|corpus|server|mcp|search)\/src\//, /^apps\/cli\/src\//];
const OWN_PIPELINE = /\bModel\.load\(|\.create(Head|Predictor|Text|Align)?Context\(/;
/** The packages that run graphs, and the one file among them that reads the environment. */
const RUNTIME_PACKAGES = /^packages\/(graph|worldmodel|session|engine)\/src\//;
const RUNTIME_READER = 'packages/graph/src/runtime-options.ts';
const SERVER_IMPORTERS = [/^apps\/cli\/src\/commands\/serve(\.ts|\/)/, /^apps\/bench\//, /^packages\/mcp\/test\//];

/** Every workspace package: name, folder (relative to root, '/' separated) and exported subpaths. */
function workspacePackages(root) {
  const dirs = [...WORKSPACE_DIRS.flatMap((d) => (existsSync(join(root, d)) ? readdirSync(join(root, d)).map((n) => `${d}/${n}`) : [])), 'native'];
  const out = [];
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    const exported = typeof pkg.exports === 'object' && pkg.exports !== null ? Object.keys(pkg.exports).filter((k) => k.startsWith('.')) : ['.'];
    out.push({ name: pkg.name, dir, exported: new Set(exported) });
  }
  return out;
}

function sourceFiles(root, dir) {
  const out = [];
  const walk = (rel) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('build') && !entry.name.startsWith('.')) walk(path);
      } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/** The module specifiers a file imports, with their lines: static, re-exports, import(), require(), import x = require() and import('x') types. */
function importsOf(text, file) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const add = (node) => {
    if (node && ts.isStringLiteralLike(node))
      found.push({ specifier: node.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) add(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isTestFile = (inPackage) =>
  /^(test|tests|__tests__)\//.test(inPackage) || /\.test\.[^/]+$/.test(inPackage) || /^vitest\.config\./.test(inPackage);
const isScript = (inPackage) => inPackage.startsWith('scripts/');

/** The file a relative specifier names among the package's sources (NodeNext style: './x.js' is x.ts). */
function resolveRelative(fromFile, specifier, known) {
  const base = join(dirname(fromFile), specifier).split(sep).join('/');
  const stem = base.replace(/\.(js|mjs|cjs|ts|mts|cts)$/, '');
  for (const candidate of [
    base,
    `${stem}.ts`,
    `${stem}.mts`,
    `${stem}.cts`,
    `${stem}.js`,
    `${stem}.mjs`,
    `${stem}.cjs`,
    `${base}/index.ts`,
    `${base}/index.js`,
  ])
    if (known.has(candidate)) return candidate;
  return undefined;
}

/** The elementary cycles' representatives: for each strongly connected component of more than one file (or a self-import), its files. */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const connect = (v) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
    }
    if (low.get(v) === indices.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? new Set()).has(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) connect(v);
  return out;
}

/** Every violation under root, as { file, line, rule, message }, sorted by file. */
export function checkBoundaries(root) {
  root = resolve(root);
  const packages = workspacePackages(root);
  const byName = new Map(packages.map((p) => [p.name, p]));
  const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((n) => [n, layer])));
  const violations = [];
  const report = (file, line, rule, message) => violations.push({ file, line, rule, message });
  for (const pkg of packages) {
    const files = sourceFiles(root, pkg.dir);
    const known = new Set(files);
    const srcGraph = new Map();
    if (!layerOf.has(pkg.name)) report(`${pkg.dir}/package.json`, 1, 'layers', `${pkg.name} has no layer in scripts/check-boundaries.mjs (LAYERS)`);
    for (const file of files) {
      const inPackage = file.slice(pkg.dir.length + 1);
      const test = isTestFile(inPackage);
      const inSrc = inPackage.startsWith('src/');
      const text = readFileSync(join(root, file), 'utf8');
      for (const [i, lineText] of text.split('\n').entries()) {
        const own = ONE_PATH.some((r) => r.test(file)) ? OWN_PIPELINE.exec(lineText) : null;
        if (own)
          report(file, i + 1, 'one path', `'${own[0]}': run the model through its @jepa/session ModelSession, not a Model or context of its own`);
        if (RUNTIME_PACKAGES.test(file) && file !== RUNTIME_READER && /\bprocess\.env\b/.test(lineText))
          report(
            file,
            i + 1,
            'environment',
            `'process.env': read the switches from the model's RuntimeOptions (${RUNTIME_READER} reads the environment)`,
          );
      }
      for (const { specifier, line } of importsOf(text, file)) {
        if (ALLOWED.some((a) => a.file === file && a.specifier === specifier)) continue;
        if (specifier.startsWith('.')) {
          const target = join(dirname(file), specifier).split(sep).join('/');
          if (target !== pkg.dir && !target.startsWith(`${pkg.dir}/`)) {
            report(file, line, 'internals', `'${specifier}' leaves ${pkg.dir}: import the package by its name`);
            continue;
          }
          if (inSrc) {
            const to = resolveRelative(file, specifier, known);
            if (to?.startsWith(`${pkg.dir}/src/`)) srcGraph.set(file, (srcGraph.get(file) ?? new Set()).add(to));
          }
          continue;
        }
        const m = /^(@jepa\/[^/]+|jepa)(\/.*)?$/.exec(specifier);
        const target = m && byName.get(m[1]);
        if (!target) continue;
        const subpath = m[2] ? `.${m[2]}` : '.';
        if (/^\.\/(src|dist)(\/|$)/.test(subpath) || !target.exported.has(subpath))
          report(
            file,
            line,
            'internals',
            `'${specifier}' reaches into ${target.name}: import '${target.name}'${target.exported.size > 1 ? ` or a subpath it exports (${[...target.exported].join(', ')})` : ''}`,
          );
        if (target.name === pkg.name) continue;
        if (target.name === '@jepa/testing' && !test && !isScript(inPackage) && pkg.name !== '@jepa/bench')
          report(file, line, 'testing', `'${specifier}': the test kit is for test files, scripts and apps/bench only`);
        if (target.name === '@jepa/server' && !SERVER_IMPORTERS.some((r) => r.test(file)))
          report(file, line, 'front ends', `'${specifier}': only apps/cli's serve command, apps/bench and MCP's tests import @jepa/server`);
        if (test) continue;
        const from = layerOf.get(pkg.name);
        const to = layerOf.get(target.name);
        if (from !== undefined && to === undefined) report(file, line, 'layers', `'${specifier}': ${target.name} has no layer in LAYERS`);
        else if (from !== undefined && to >= from && target.name !== '@jepa/testing')
          report(file, line, 'layers', `'${specifier}': ${pkg.name} (layer ${from}) imports ${target.name} (layer ${to}); only lower layers`);
      }
    }
    for (const component of cycles(srcGraph))
      report(component[0], 1, 'cycles', `circular imports among ${component.map((f) => relative(pkg.dir, f)).join(', ')}`);
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

function main() {
  const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkBoundaries(root);
  for (const v of violations) process.stderr.write(`${v.file}:${v.line}: ${v.rule}: ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`check-boundaries: ${violations.length} violation(s) (rules: scripts/check-boundaries.mjs)\n`);
    process.exit(1);
  }
  process.stdout.write('check-boundaries: no violations\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) && statSync(process.argv[1]).isFile()) main();
