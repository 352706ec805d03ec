/**
 * The layering rules between packages, checked by reading every source file's imports:
 * protocol → zod only; rpc → protocol + ws + jose + zod; engine → no rpc, no app-server wire;
 * demo-model → node built-ins only; nothing imports from apps/; no shipped file imports
 * test-support; no `import()` of a computed specifier (the bundler and this test could not
 * follow it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (path.endsWith('.ts') || path.endsWith('.cts')) out.push(path);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/g),
    ...text.matchAll(/import\('([^']+)'\)/g),
    // CommonJS sources (`.cts`): `import x = require('…')` and `require('…')`.
    ...text.matchAll(/(?<![\w.$])require\('([^']+)'\)/g),
  ];
  return found.map((m) => m[1]!);
}

function violations(pkgDir: string, allowed: (spec: string) => boolean): string[] {
  return sourceFiles(join(ROOT, pkgDir, 'src')).flatMap((file) =>
    importsOf(file)
      .filter((spec) => !allowed(spec))
      .map((spec) => `${relative(ROOT, file)} imports ${spec}`),
  );
}

/** The source text without comments (a `//` counts only after a space, so URLs in strings stay). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

/** Every `import(…)` whose argument is not a string literal, as `file: import(…`. */
function computedImports(pkgDir: string): string[] {
  return sourceFiles(join(ROOT, pkgDir, 'src')).flatMap((file) =>
    [...withoutComments(readFileSync(file, 'utf8')).matchAll(/(?<![\w.$])import\s*\(\s*(?!'[^'\n]*'\s*\)|"[^"\n]*"\s*\))([^)\n]{0,40})/g)].map(
      (m) => `${relative(ROOT, file)}: import(${m[1] ?? ''}`,
    ),
  );
}

/** The directories of code that ships (apps and the packages they run on); test-support is not among them. */
function shippedDirs(): string[] {
  const apps = readdirSync(join(ROOT, 'apps')).map((name) => `apps/${name}`);
  return [...apps, 'packages/engine', 'packages/rpc', 'packages/protocol', 'packages/demo-model'].filter((d) => statSync(join(ROOT, d, 'src'), { throwIfNoEntry: false })?.isDirectory());
}

const isRelative = (spec: string) => spec.startsWith('.');
const isNode = (spec: string) => spec.startsWith('node:');

describe('dependency rules', () => {
  it('keeps protocol pure: zod and its own files only, no node: modules', () => {
    expect(violations('packages/protocol', (s) => isRelative(s) || s === 'zod')).toEqual([]);
  });

  it('lets rpc use only protocol, ws, jose, zod and node built-ins', () => {
    expect(violations('packages/rpc', (s) => isRelative(s) || isNode(s) || ['@deputy/protocol', '@deputy/protocol/jsonrpc', 'ws', 'jose', 'zod'].includes(s))).toEqual([]);
  });

  it('keeps the engine free of wire packages', () => {
    const bad = violations('packages/engine', (s) => !s.startsWith('@deputy/rpc') && !s.includes('app-server') && !s.startsWith('@deputy/test-support'));
    expect(bad).toEqual([]);
  });

  it('keeps the demo model on node built-ins only, so the engine can run it anywhere', () => {
    expect(violations('packages/demo-model', (s) => isRelative(s) || isNode(s))).toEqual([]);
  });

  it('never lets shipped code import test-support', () => {
    const dirs = shippedDirs();
    expect(dirs).toEqual(expect.arrayContaining(['apps/app-server', 'apps/mcp-server', 'apps/cli', 'packages/engine']));
    const bad = dirs.flatMap((d) => violations(d, (s) => !s.startsWith('@deputy/test-support') && !s.includes('test-support/')));
    expect(bad).toEqual([]);
  });

  it('never imports a computed specifier (the bundle and these rules must see every import)', () => {
    const dirs = [...shippedDirs(), 'packages/test-support'];
    expect(dirs.flatMap(computedImports)).toEqual([]);
  });

  it('never imports from apps/', () => {
    const dirs = ['packages/protocol', 'packages/rpc', 'packages/engine', 'packages/demo-model', 'packages/test-support'];
    const bad = dirs.flatMap((d) => violations(d, (s) => !s.includes('apps/') && !s.startsWith('@deputy/mcp-server') && !s.startsWith('@deputy/app-server')));
    expect(bad).toEqual([]);
  });
});
