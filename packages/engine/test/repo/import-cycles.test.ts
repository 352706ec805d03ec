/**
 * No value-import cycles: in every package's and app's `src/`, the relative imports that bring
 * values (not `import type`, not imports whose every name is `type`) form no cycle. A type-only
 * back edge belongs in a leaf type module. Each source file is parsed with the TypeScript
 * compiler, so multi-line and re-export statements count too; a dynamic `import()` counts as a
 * value edge.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Cycles known and not yet fixed: each entry lists the files (repo-relative) that import each
 * other in a circle (one strongly connected group). Remove an entry when its cycle is gone (the
 * test fails on a stale entry); never add one to make a new cycle pass.
 */
const KNOWN_CYCLES: readonly string[][] = [];

function srcDirs(): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name, 'src'))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
  );
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Whether an import or export declaration brings at least one value (or runs the module). */
function bringsValue(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return true; // `import './x.js'` runs the module
    if (clause.isTypeOnly) return false;
    if (clause.name) return true;
    const bindings = clause.namedBindings;
    if (!bindings || ts.isNamespaceImport(bindings)) return true;
    // `import {} from` is elided like a type-only import; `import { type A, b }` brings `b`.
    return bindings.elements.some((e) => !e.isTypeOnly);
  }
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  if (!clause || ts.isNamespaceExport(clause)) return true;
  return clause.elements.some((e) => !e.isTypeOnly);
}

/** The files `file` imports values from, by relative specifier (`./x.js` → `./x.ts`). */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const specs: string[] = [];
  for (const node of source.statements) {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (bringsValue(node)) specs.push(node.moduleSpecifier.text);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) specs.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  // Walking every node is the slow part; only files that mention `import(` need it.
  if (text.includes('import(')) visit(source);
  return specs
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
    .map((target) => (statSync(target, { throwIfNoEntry: false })?.isFile() ? target : join(target.replace(/\.ts$/, ''), 'index.ts')));
}

/**
 * The files that import each other in a circle, one group per strongly connected component
 * (Tarjan): a group of more than one file, or a file importing itself, holds at least one cycle.
 * Each group is returned sorted.
 */
function cyclicGroups(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) strongConnect(v);
  return groups;
}

/** A shortest cycle through the first file of `group`, in import order (for the failure message). */
function shortestCycle(graph: Map<string, string[]>, group: readonly string[]): string[] {
  const members = new Set(group);
  const start = group[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = previous.get(v); p !== undefined; p = previous.get(p)) path.unshift(p);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  it('finds no value-import cycle in any package or app, except the known ones listed above', () => {
    const graph = new Map<string, string[]>();
    for (const file of srcDirs().flatMap(sourceFiles)) {
      graph.set(
        relative(ROOT, file),
        valueImports(file).map((target) => relative(ROOT, target)),
      );
    }
    const known = new Set(KNOWN_CYCLES.map((group) => [...group].sort().join(' + ')));
    const found = cyclicGroups(graph);
    const unexpected = found.filter((group) => !known.has(group.join(' + '))).map((group) => shortestCycle(graph, group).join(' → '));
    expect(unexpected).toEqual([]);
    // A known cycle that is gone leaves the list too, so the list never hides a new one.
    expect([...known].filter((key) => !found.some((group) => group.join(' + ') === key))).toEqual([]);
  });

  it('detects a cycle and ignores type-only edges', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclicGroups(graph)).toEqual([['a', 'b', 'c']]);
    expect(shortestCycle(graph, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'a']);
    expect(cyclicGroups(new Map([['a', ['a']]]))).toEqual([['a']]);
    const typeOnly = (text: string) => bringsValue(ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest).statements[0] as ts.ImportDeclaration);
    expect(typeOnly("import type { A } from './a.js';")).toBe(false);
    expect(typeOnly("import { type A, type B } from './a.js';")).toBe(false);
    expect(typeOnly("import { type A, b } from './a.js';")).toBe(true);
    expect(typeOnly("import './a.js';")).toBe(true);
    expect(typeOnly("export { a } from './a.js';")).toBe(true);
    expect(typeOnly("export type { A } from './a.js';")).toBe(false);
  });
});
