/**
 * What the app-server loads before it can answer `initialize`: the static import graph of
 * `main.ts` (through the workspace entry points, not through dynamic `import()`) must not reach
 * the engine, its heavy dependencies, the WebSocket and JWT code, the event projection, or (from
 * the app's own files) the full protocol tables, which all load on first need. `import type`
 * lines are erased; any other import loads its module.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Workspace entry points, as the build resolves them. */
const WORKSPACE: Record<string, string> = {
  '@deputy/protocol/handshake': 'packages/protocol/src/app-server/handshake.ts',
  '@deputy/protocol/jsonrpc': 'packages/protocol/src/jsonrpc.ts',
  '@deputy/rpc/core': 'packages/rpc/src/core.ts',
  '@deputy/rpc': 'packages/rpc/src/index.ts',
  '@deputy/protocol': 'packages/protocol/src/index.ts',
};

/** The specifiers a file imports at run time (static imports and re-exports that are not type-only). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)[ \t]*(import|export)\s+(type\s)?[^'";]*?\bfrom\s+'([^']+)'/g)) {
    if (match[2] === undefined) found.push(match[3] as string);
  }
  for (const match of text.matchAll(/(?:^|\n)[ \t]*import\s+'([^']+)'/g)) found.push(match[1] as string);
  return found;
}

/** Files (relative to the repository), external packages and workspace imports (`file → spec`) reachable from `entry`. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string>; workspaceImports: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const workspaceImports: string[] = [];
  const visit = (file: string): void => {
    const relative = path.relative(ROOT, file);
    if (files.has(relative)) return;
    files.add(relative);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('@deputy/')) workspaceImports.push(`${relative} → ${spec}`);
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (Object.hasOwn(WORKSPACE, spec)) visit(path.join(ROOT, WORKSPACE[spec] as string));
      else packages.add(spec);
    }
  };
  visit(path.join(ROOT, entry));
  return { files, packages, workspaceImports };
}

describe('start-up imports', () => {
  it('answer initialize with zod, the handshake schemas and the rpc core only', () => {
    const { files, packages, workspaceImports } = staticGraph('apps/app-server/src/main.ts');
    expect([...packages].sort()).toEqual(['zod']);
    const appFiles = [...files].filter((f) => f.startsWith('apps/app-server/src/'));
    expect(appFiles).not.toContain('apps/app-server/src/engine-services.ts');
    expect(appFiles).not.toContain('apps/app-server/src/project/notifications.ts');
    expect(appFiles.filter((f) => f.includes('/handlers/'))).toEqual(['apps/app-server/src/handlers/initialize.ts']);
    // The app itself asks only for the handshake rows; the rpc core decides how much of the protocol it needs.
    const fromApp = workspaceImports.filter((edge) => edge.startsWith('apps/')).map((edge) => edge.split(' → ')[1]);
    expect([...new Set(fromApp)].sort()).toEqual(['@deputy/protocol/handshake', '@deputy/rpc/core']);
    const rpcFiles = [...files].filter((f) => f.startsWith('packages/rpc/src/'));
    expect(rpcFiles.filter((f) => /websocket|unix-socket|upgrade-server|memory/.test(f))).toEqual([]);
  });

  it('keep ws and jose out of the rpc entry points until a listener or a signed-token check needs them', () => {
    for (const entry of ['packages/rpc/src/index.ts', 'packages/rpc/src/core.ts']) {
      expect([...staticGraph(entry).packages].sort()).toEqual(['zod']);
    }
  });

  it('load the engine with the first request after the handshake', () => {
    const { packages } = staticGraph('apps/app-server/src/engine-services.ts');
    expect(packages).toContain('@deputy/engine');
  });
});
