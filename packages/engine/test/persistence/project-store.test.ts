/**
 * The project store: order under many moves, idempotent creates, membership, delete, forget, reopen;
 * and the batched lookups of a `thread/list` page (project, section, read state of many threads).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadStateStore } from '../../src/persistence/thread-state-store.js';
import { makeHome, removeHome } from './fixtures.js';

let home: string;
let store: ThreadStateStore;
beforeEach(async () => {
  home = await makeHome();
  store = ThreadStateStore.open(home);
});
afterEach(async () => {
  store.close();
  await removeHome(home);
});

const make = (name: string, key = name) => store.projects.create({ name, roots: [], metadata: {}, idempotencyKey: key, nowSeconds: 100 }).project;
const names = () => store.projects.list().map((p) => p.name);

describe('ProjectStore', () => {
  it('keeps a consistent order through many moves to the same place', () => {
    const [a, b, c] = [make('a'), make('b'), make('c')];
    // Alternating moves in front of one neighbour: midpoint positions would run out of precision.
    for (let i = 0; i < 200; i++) store.projects.move(i % 2 === 0 ? c.id : a.id, b.id);
    expect(names()).toEqual(['c', 'a', 'b']);
    store.projects.move(b.id, null);
    store.projects.move(a.id, c.id);
    expect(names()).toEqual(['a', 'c', 'b']);
    store.projects.move(c.id, 'not-a-project');
    expect(names()).toEqual(['a', 'b', 'c']);
  });

  it('creates once per idempotency key and moves the given threads in the same step', () => {
    const first = store.projects.create({ name: 'p', roots: ['/r'], metadata: { k: 'v' }, idempotencyKey: 'key', nowSeconds: 5 }, ['t1', 't2']);
    expect(first.created).toBe(true);
    const again = store.projects.create({ name: 'other', roots: [], metadata: {}, idempotencyKey: 'key', nowSeconds: 9 }, ['t3']);
    expect(again).toEqual({ project: first.project, created: false });
    expect(store.projects.members(first.project.id)).toEqual(['t1', 't2']);
    expect(store.projects.projectOf('t3')).toBeNull();
  });

  it('moves a thread between projects, frees the threads of a deleted project and forgets deleted threads', () => {
    const [p, q] = [make('p'), make('q')];
    store.projects.assign('t1', p.id);
    store.projects.assign('t2', p.id);
    store.projects.assign('t1', q.id);
    expect([store.projects.projectOf('t1'), store.projects.members(p.id)]).toEqual([q.id, ['t2']]);
    expect(store.projects.delete(p.id)).toEqual(['t2']);
    expect(store.projects.delete(p.id)).toBeNull();
    expect(store.projects.projectOf('t2')).toBeNull();
    store.forget('t1');
    expect(store.projects.assignedThreadIds()).toEqual(new Set());
  });

  it('reads back what it wrote after the database is reopened', () => {
    const p = make('p');
    store.projects.update({ ...p, name: 'renamed', roots: ['/a', '/b'], metadata: { x: 'y' }, updatedAt: 200 });
    store.projects.assign('t', p.id);
    store.close();
    store = ThreadStateStore.open(home);
    expect(store.projects.get(p.id)).toEqual({ ...p, name: 'renamed', roots: ['/a', '/b'], metadata: { x: 'y' }, updatedAt: 200 });
    expect(store.projects.projectOf('t')).toBe(p.id);
  });

  it('looks up the project, section and read state of many threads at once as one at a time does', () => {
    const p = make('p');
    const section = store.createSection('s', null);
    store.projects.assign('t1', p.id);
    store.moveToSection('t2', section.id, null, 7);
    store.putReadState('t1', { firstUnread: { turnId: 'turn-1' }, revision: 3 });
    store.putReadState('t3', { firstUnread: null, revision: 1 });
    const ids = ['t1', 't2', 't3', 'unknown', "it's \"quoted\""];
    expect(store.projects.projectsOf(ids)).toEqual(new Map([['t1', p.id]]));
    expect(store.membershipsOf(ids)).toEqual(new Map([['t2', { threadId: 't2', sectionId: section.id, enteredAt: 7 }]]));
    expect(store.readStatesOf(ids)).toEqual(
      new Map([
        ['t1', { firstUnread: { turnId: 'turn-1' }, revision: 3 }],
        ['t3', { firstUnread: null, revision: 1 }],
      ]),
    );
    for (const id of ids) {
      expect(store.projects.projectsOf(ids).get(id) ?? null).toEqual(store.projects.projectOf(id));
      expect(store.membershipsOf(ids).get(id) ?? null).toEqual(store.membership(id));
      expect(store.readStatesOf(ids).get(id) ?? null).toEqual(store.readState(id));
    }
    expect([store.projects.projectsOf([]).size, store.membershipsOf([]).size, store.readStatesOf([]).size]).toEqual([0, 0, 0]);
  });
});
