/**
 * The layering rules of STYLE.md, checked by reading every source file's imports:
 * protocol → zod only; rpc → protocol + ws + jose + zod; engine → no rpc, no app-server wire;
 * nothing imports from apps/.
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
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/g), ...text.matchAll(/import\('([^']+)'\)/g)];
  return found.map((m) => m[1]!);
}

function violations(pkgDir: string, allowed: (spec: string) => boolean): string[] {
  return sourceFiles(join(ROOT, pkgDir, 'src')).flatMap((file) =>
    importsOf(file)
      .filter((spec) => !allowed(spec))
      .map((spec) => `${relative(ROOT, file)} imports ${spec}`),
  );
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

  it('never imports from apps/', () => {
    const dirs = ['packages/protocol', 'packages/rpc', 'packages/engine', 'packages/test-support'];
    const bad = dirs.flatMap((d) => violations(d, (s) => !s.includes('apps/') && !s.startsWith('@deputy/mcp-server') && !s.startsWith('@deputy/app-server')));
    expect(bad).toEqual([]);
  });
});
