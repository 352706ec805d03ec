/**
 * Tests of the fuzzy file search: the matcher and the gitignore translation as pure functions,
 * then `fuzzyFileSearch` and the session methods over in-memory transports with the wire sniffer,
 * on a real temp tree (a git repository with `.gitignore`, `.git/info/exclude` and `.ignore`
 * files, hidden entries, nested directories, symlinks): ranking, indices, limits, cancellation,
 * the session flow with its notifications to the caller only, stop, and the error rows.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileIgnore, matchIgnore } from '../src/fuzzy/gitignore.js';
import { matchPattern, parsePattern, prepareHaystack } from '../src/fuzzy/matcher.js';
import { startHarness, type Harness } from './support/harness.js';
import type { Received, WireClient } from './support/wire-client.js';

interface Result {
  root: string;
  path: string;
  match_type: 'file' | 'directory';
  file_name: string;
  score: number;
  indices?: number[] | null;
}

function match(path: string, query: string): { score: number; indices: number[] } | null {
  return matchPattern(prepareHaystack(path), parsePattern(query));
}

describe('matcher', () => {
  it('scores like the reference: boundary bonuses, consecutive runs and gap penalties', () => {
    expect(match('main.rs', 'main')).toEqual({ score: 109, indices: [0, 1, 2, 3] });
    expect(match('src/main.rs', 'smain')).toEqual({ score: 129, indices: [0, 4, 5, 6, 7] });
    expect(match('src/util/domain.ts', 'main')).toEqual({ score: 76, indices: [11, 12, 13, 14] });
    expect(match('src/main.rs', 'xyz')).toBeNull();
  });

  it('prefers the alignment on word starts over the first occurrence', () => {
    const result = match('alpha/fooBar/far.txt', 'far');
    expect(result?.indices).toEqual([13, 14, 15]);
    expect(match('a_b_c', 'abc')?.indices).toEqual([0, 2, 4]);
  });

  it('ignores case, folds accents unless the query has them, and counts code points', () => {
    expect(match('Docs/Café.md', 'cafe')?.indices).toEqual([5, 6, 7, 8]);
    expect(match('Docs/Cafe.md', 'café')).toBeNull();
    expect(match('😀/notes.md', 'notes')?.indices).toEqual([2, 3, 4, 5, 6]);
  });

  it('supports the query syntax: atoms, substring, prefix, suffix, exclusion and escapes', () => {
    expect(match('src/main.rs', 'src rs')?.indices).toEqual([0, 1, 2, 9, 10]);
    expect(match('src/main.rs', "'ain")?.indices).toEqual([5, 6, 7]);
    expect(match('src/main.rs', "'sm")).toBeNull();
    expect(match('src/main.rs', '^src')).not.toBeNull();
    expect(match('src/main.rs', '^main')).toBeNull();
    expect(match('src/main.rs', '.rs$')?.indices).toEqual([8, 9, 10]);
    expect(match('src/main.rs', 'main !test')).not.toBeNull();
    expect(match('src/main.test.rs', 'main !test')).toBeNull();
    expect(match('my file.txt', 'my\\ file')?.indices).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(parsePattern('   ')).toEqual([]);
  });
});

describe('gitignore rules', () => {
  const rules = compileIgnore(
    ['# comment', '*.log', '!keep.log', '/build', 'tmp/', 'docs/**/draft.md', '\\#hash', 'a?c', '[ab].txt', 'trailing   '].join('\n'),
  );
  const ignored = (path: string, isDir = false): boolean | undefined => matchIgnore(rules, path, isDir);

  it('matches names at any depth, anchors patterns with a slash, and lets the last line win', () => {
    expect(ignored('x.log')).toBe(true);
    expect(ignored('deep/er/x.log')).toBe(true);
    expect(ignored('keep.log')).toBe(false);
    expect(ignored('build', true)).toBe(true);
    expect(ignored('src/build', true)).toBeUndefined();
    expect(ignored('docs/draft.md')).toBe(true);
    expect(ignored('docs/a/b/draft.md')).toBe(true);
    expect(ignored('other/docs/draft.md')).toBeUndefined();
  });

  it('handles directory-only lines, escapes, wildcards, classes and trailing spaces', () => {
    expect(ignored('tmp', true)).toBe(true);
    expect(ignored('tmp', false)).toBeUndefined();
    expect(ignored('#hash')).toBe(true);
    expect(ignored('abc')).toBe(true);
    expect(ignored('a/c')).toBeUndefined();
    expect(ignored('b.txt')).toBe(true);
    expect(ignored('c.txt')).toBeUndefined();
    expect(ignored('trailing')).toBe(true);
    expect(ignored('comment')).toBeUndefined();
  });
});

let h: Harness;
let tree: string;

/** Writes `files` (path → content) under `base`, creating directories. */
function writeTree(base: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
}

beforeEach(async () => {
  h = await startHarness();
  tree = join(h.temp.cwd, 'tree');
  writeTree(tree, {
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/info/exclude': 'secret.txt\n',
    '.gitignore': '*.log\n/build/\nnode_modules/\n!keep.log\n',
    '.hidden/notes.md': '',
    '.env': '',
    'src/main.ts': '',
    'src/components/MainView.tsx': '',
    'src/util/domain.ts': '',
    'build/out.js': '',
    'node_modules/pkg/index.js': '',
    'debug.log': '',
    'keep.log': '',
    'secret.txt': '',
    'docs/.ignore': 'draft.md\n',
    'docs/draft.md': '',
    'docs/guide.md': '',
  });
});

afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

async function search(client: WireClient, query: string, roots: string[] = [tree], cancellationToken?: string): Promise<Result[]> {
  const { files } = await client.call<{ files: Result[] }>('fuzzyFileSearch', { query, roots, cancellationToken });
  return files;
}

async function paths(client: WireClient, query: string, roots?: string[]): Promise<string[]> {
  return (await search(client, query, roots)).map((f) => f.path);
}

async function failure(client: WireClient, method: string, params: unknown): Promise<{ code: number; message: string }> {
  const response = await client.request(method, params);
  if (!('error' in response) || response.error === undefined) throw new Error(`${method} succeeded: ${JSON.stringify(response)}`);
  return { code: response.error.code, message: response.error.message };
}

describe('fuzzyFileSearch', () => {
  it('ranks by score then path and reports roots, names, kinds and indices', async () => {
    const c = await h.connect();
    expect(await search(c, 'main')).toEqual([
      { root: tree, path: 'src/components/MainView.tsx', match_type: 'file', file_name: 'MainView.tsx', score: 109, indices: [15, 16, 17, 18] },
      { root: tree, path: 'src/main.ts', match_type: 'file', file_name: 'main.ts', score: 109, indices: [4, 5, 6, 7] },
      { root: tree, path: 'src/util/domain.ts', match_type: 'file', file_name: 'domain.ts', score: 76, indices: [11, 12, 13, 14] },
    ]);
    const [first] = await search(c, 'comp');
    expect(first).toMatchObject({ path: 'src/components', match_type: 'directory', file_name: 'components' });
  });

  it('applies .gitignore, info/exclude and .ignore, shows hidden entries and leaves .git out', async () => {
    const c = await h.connect();
    expect(await paths(c, 'out.js')).toEqual([]);
    expect(await paths(c, 'index')).toEqual([]);
    expect(await paths(c, 'debug')).toEqual([]);
    expect(await paths(c, 'secret')).toEqual([]);
    expect(await paths(c, 'draft')).toEqual([]);
    expect(await paths(c, 'HEAD')).toEqual([]);
    expect(await paths(c, 'keep')).toEqual(['keep.log']);
    expect(await paths(c, 'notes')).toEqual(['.hidden/notes.md']);
    expect(await paths(c, '.env')).toEqual(['.env']);
    expect(await paths(c, 'guide')).toEqual(['docs/guide.md']);
  });

  it('applies .gitignore only inside a repository and not above its root', async () => {
    const outside = join(h.temp.cwd, 'outside');
    writeTree(outside, { '.gitignore': '*.txt\n', 'plain/a.txt': '', 'plain/.gitignore': 'b.txt\n', 'plain/b.txt': '' });
    writeTree(outside, { 'repo/.git/HEAD': '', 'repo/c.txt': '', 'repo/d.md': '', 'repo/.gitignore': 'd.md\n' });
    const c = await h.connect();
    expect((await paths(c, 'txt', [outside])).sort()).toEqual(['plain/a.txt', 'plain/b.txt', 'repo/c.txt']);
    expect(await paths(c, 'd.md', [join(outside, 'repo')])).toEqual([]);
  });

  it('answers at most 50 files and nothing for an empty query or no roots', async () => {
    writeTree(tree, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`many/file-${String(i).padStart(2, '0')}.txt`, ''])));
    const c = await h.connect();
    const files = await search(c, 'file');
    expect(files).toHaveLength(50);
    const order = [...files].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    expect(files).toEqual(order);
    expect(await search(c, '')).toEqual([]);
    expect(await search(c, '   ')).toEqual([]);
    expect(await search(c, 'main', [])).toEqual([]);
  });

  it('resolves relative roots from the server cwd, skips missing ones and lists nested roots once', async () => {
    const c = await h.connect();
    expect((await search(c, 'main.ts', ['tree', join(h.temp.cwd, 'missing')]))[0]).toMatchObject({ root: 'tree', path: 'src/main.ts' });
    const nested = await search(c, '^main.ts$', [tree, join(tree, 'src')]);
    expect(nested).toMatchObject([{ root: join(tree, 'src'), path: 'main.ts', score: 184 }]);
  });

  it('follows symlinks and skips a link to an ancestor (a loop), as the reference walker does', async () => {
    symlinkSync(join(tree, 'docs'), join(tree, 'src', 'linked-docs'));
    symlinkSync(tree, join(tree, 'src', 'loop'));
    const c = await h.connect();
    expect((await paths(c, 'guide')).sort()).toEqual(['docs/guide.md', 'src/linked-docs/guide.md']);
    expect(await paths(c, 'loop')).toEqual([]);
  });

  it('cancels an older search with the same token, which answers no files', async () => {
    writeTree(tree, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`bulk/d${i}/e/f/file.txt`, ''])));
    const c = await h.connect();
    const older = c.call<{ files: Result[] }>('fuzzyFileSearch', { query: 'file', roots: [tree], cancellationToken: 't' });
    const other = c.call<{ files: Result[] }>('fuzzyFileSearch', { query: 'file', roots: [tree], cancellationToken: 'u' });
    const newer = c.call<{ files: Result[] }>('fuzzyFileSearch', { query: 'main', roots: [tree], cancellationToken: 't' });
    expect((await older).files).toEqual([]);
    expect((await other).files).toHaveLength(50);
    expect((await newer).files.map((f) => f.path)).toContain('src/main.ts');
  });

  it('scopes cancellation tokens to the connection', async () => {
    writeTree(tree, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`bulk/d${i}/e/f/file.txt`, ''])));
    const [a, b] = [await h.connect(), await h.connect()];
    const first = a.call<{ files: Result[] }>('fuzzyFileSearch', { query: 'file', roots: [tree], cancellationToken: 't' });
    const second = b.call<{ files: Result[] }>('fuzzyFileSearch', { query: 'file', roots: [tree], cancellationToken: 't' });
    expect((await first).files).toHaveLength(50);
    expect((await second).files).toHaveLength(50);
  });

  it('refuses params without a query as the reference does and keeps serving', async () => {
    const c = await h.connect();
    expect(await failure(c, 'fuzzyFileSearch', {})).toEqual({ code: -32600, message: 'Invalid request: missing field `query`' });
    expect(await failure(c, 'fuzzyFileSearch', { query: 'x' })).toEqual({ code: -32600, message: 'Invalid request: missing field `roots`' });
    expect(await paths(c, 'guide')).toEqual(['docs/guide.md']);
  });
});

const EXPERIMENTAL = { experimentalApi: true };
const UPDATED = 'fuzzyFileSearch/sessionUpdated';
const COMPLETED = 'fuzzyFileSearch/sessionCompleted';

function ofSession(client: WireClient, method: string, sessionId: string): Received[] {
  return client.notifications(method).filter((n) => n.params['sessionId'] === sessionId);
}

/**
 * Waits until a `sessionCompleted` of the session follows an update of `query`, and returns the
 * last update of that query before it: the final matches of the query.
 */
async function finalFor(client: WireClient, sessionId: string, query: string): Promise<Record<string, unknown>> {
  return client.waitUntil(() => {
    let last: Record<string, unknown> | undefined;
    for (const n of client.notifications()) {
      if (n.params['sessionId'] !== sessionId) continue;
      if (n.method === UPDATED) last = n.params['query'] === query ? n.params : undefined;
      else if (n.method === COMPLETED && last !== undefined) return last;
    }
    return undefined;
  }, `final update of ${JSON.stringify(query)}`);
}

describe('fuzzyFileSearch sessions', () => {
  it('streams updates and one completion per query to the caller only', async () => {
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    const bystander = await h.connect({ capabilities: EXPERIMENTAL });
    expect(await c.call('fuzzyFileSearch/sessionStart', { sessionId: 's1', roots: [tree] })).toEqual({});
    expect(await finalFor(c, 's1', '')).toEqual({ sessionId: 's1', query: '', files: [] });
    expect(await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's1', query: 'main' })).toEqual({});
    const final = await finalFor(c, 's1', 'main');
    expect((final['files'] as Result[]).map((f) => [f.path, f.score])).toEqual([
      ['src/components/MainView.tsx', 109],
      ['src/main.ts', 109],
      ['src/util/domain.ts', 76],
    ]);
    expect(ofSession(c, COMPLETED, 's1')).toHaveLength(2);
    await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's1', query: 'zzzz' });
    expect(await finalFor(c, 's1', 'zzzz')).toEqual({ sessionId: 's1', query: 'zzzz', files: [] });
    await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's1', query: '' });
    await c.waitUntil(() => ofSession(c, COMPLETED, 's1').length === 4, 'fourth completion');
    expect(ofSession(c, UPDATED, 's1').at(-1)?.params).toEqual({ sessionId: 's1', query: '', files: [] });
    expect(bystander.notifications(UPDATED)).toEqual([]);
    expect(bystander.notifications(COMPLETED)).toEqual([]);
  });

  it('caps a session query at 50 matches in the one-shot order', async () => {
    writeTree(tree, Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`bulk/d${i}/file.txt`, ''])));
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    await c.call('fuzzyFileSearch/sessionStart', { sessionId: 'big', roots: [tree] });
    await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 'big', query: 'file' });
    const files = (await finalFor(c, 'big', 'file'))['files'] as Result[];
    expect(files).toHaveLength(50);
    expect(files).toEqual(await search(c, 'file'));
  });

  it('sends each update after the response of the request that caused it', async () => {
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    await c.call('fuzzyFileSearch/sessionStart', { sessionId: 's2', roots: [tree] });
    await finalFor(c, 's2', '');
    const response = c.request('fuzzyFileSearch/sessionUpdate', { sessionId: 's2', query: 'guide' });
    const responseIndex = c.received.length;
    await response;
    await finalFor(c, 's2', 'guide');
    const firstUpdate = c.received.findIndex((m, i) => i >= responseIndex && 'method' in m && m.method === UPDATED);
    const answer = c.received.findIndex((m, i) => i >= responseIndex && 'id' in m && !('method' in m));
    expect(answer).toBeGreaterThanOrEqual(0);
    expect(firstUpdate).toBeGreaterThan(answer);
  });

  it('stops: no notification after the stop response, updates refused, stop idempotent', async () => {
    writeTree(tree, Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`bulk/d${i}/e/f/file.txt`, ''])));
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    await c.call('fuzzyFileSearch/sessionStart', { sessionId: 's3', roots: [tree] });
    await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's3', query: 'file' });
    expect(await c.call('fuzzyFileSearch/sessionStop', { sessionId: 's3' })).toEqual({});
    const afterStop = c.received.length;
    // The same walk started later on another connection: once it is over, s3's would have been.
    const probe = await h.connect({ capabilities: EXPERIMENTAL });
    await probe.call('fuzzyFileSearch/sessionStart', { sessionId: 'probe', roots: [tree] });
    await probe.call('fuzzyFileSearch/sessionUpdate', { sessionId: 'probe', query: 'file' });
    await finalFor(probe, 'probe', 'file');
    expect(c.received.slice(afterStop)).toEqual([]);
    expect(await failure(c, 'fuzzyFileSearch/sessionUpdate', { sessionId: 's3', query: 'x' })).toEqual({
      code: -32600,
      message: 'fuzzy file search session not found: s3',
    });
    expect(await c.call('fuzzyFileSearch/sessionStop', { sessionId: 's3' })).toEqual({});
    expect(await c.call('fuzzyFileSearch/sessionStop', { sessionId: 'never-started' })).toEqual({});
  });

  it('replaces a session started again under the same id and scopes ids to the connection', async () => {
    const [a, b] = [await h.connect({ capabilities: EXPERIMENTAL }), await h.connect({ capabilities: EXPERIMENTAL })];
    await a.call('fuzzyFileSearch/sessionStart', { sessionId: 'same', roots: [join(tree, 'docs')] });
    await a.call('fuzzyFileSearch/sessionStart', { sessionId: 'same', roots: [join(tree, 'src')] });
    await a.call('fuzzyFileSearch/sessionUpdate', { sessionId: 'same', query: '^main.ts$' });
    expect((await finalFor(a, 'same', '^main.ts$'))['files']).toMatchObject([{ root: join(tree, 'src'), path: 'main.ts' }]);
    expect((await failure(b, 'fuzzyFileSearch/sessionUpdate', { sessionId: 'same', query: 'x' })).code).toBe(-32600);
  });

  it('refuses an empty id, no roots and a client without experimentalApi', async () => {
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    expect(await failure(c, 'fuzzyFileSearch/sessionStart', { sessionId: '', roots: [tree] })).toEqual({
      code: -32600,
      message: 'sessionId must not be empty',
    });
    expect(await failure(c, 'fuzzyFileSearch/sessionStart', { sessionId: 's4', roots: [] })).toEqual({
      code: -32603,
      message: 'failed to start fuzzy file search session: at least one search directory is required',
    });
    expect(await failure(c, 'fuzzyFileSearch/sessionStart', {})).toEqual({ code: -32600, message: 'Invalid request: missing field `sessionId`' });
    const stable = await h.connect();
    expect(await failure(stable, 'fuzzyFileSearch/sessionStart', { sessionId: 's5', roots: [tree] })).toEqual({
      code: -32600,
      message: 'fuzzyFileSearch/sessionStart requires experimentalApi capability',
    });
    expect(await paths(stable, 'guide')).toEqual(['docs/guide.md']);
  });

  it('ends the sessions of a closed connection while others keep working', async () => {
    const gone = await h.connect({ capabilities: EXPERIMENTAL });
    await gone.call('fuzzyFileSearch/sessionStart', { sessionId: 's6', roots: [tree] });
    await gone.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's6', query: 'main' });
    await gone.close();
    const c = await h.connect({ capabilities: EXPERIMENTAL });
    await c.call('fuzzyFileSearch/sessionStart', { sessionId: 's6', roots: [tree] });
    await c.call('fuzzyFileSearch/sessionUpdate', { sessionId: 's6', query: 'guide' });
    expect(((await finalFor(c, 's6', 'guide'))['files'] as Result[]).map((f) => f.path)).toEqual(['docs/guide.md']);
  });
});
