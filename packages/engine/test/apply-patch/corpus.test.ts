/**
 * Runs the apply_patch corpus end to end in real temp directories: parse, plan, commit, then
 * compare the whole workspace with the expected files (or, for failures, with the files it started
 * with) and the success text with the reference layout.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitPatch, planPatch, summarizeChanges } from '../../src/tools/apply-patch/apply.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';
import { FAILURE_CASES } from './corpus-failure-cases.js';
import { asTree, readTree, writeTree, type PatchCase } from './corpus-helpers.js';
import { SUCCESS_CASES } from './corpus-success-cases.js';

let cwd: string;

beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'deputy-apply-patch-'));
});

afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** Parses, plans and commits the case's patch in `cwd`; returns the success text. */
async function runCase(testCase: PatchCase): Promise<string> {
  await writeTree(cwd, testCase.files ?? {});
  const changes = await planPatch(parsePatch(testCase.patch.replaceAll('{cwd}', cwd)), { cwd });
  await commitPatch(changes);
  return summarizeChanges(changes);
}

describe('apply_patch corpus: patches that apply', () => {
  it('has enough cases to cover the format', () => {
    expect(SUCCESS_CASES.length + FAILURE_CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(SUCCESS_CASES.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const summary = await runCase(testCase);
    expect(await readTree(cwd)).toEqual(asTree(testCase.expected ?? {}));
    if (testCase.summary !== undefined) expect(summary).toBe(testCase.summary);
  });
});

describe('apply_patch corpus: patches that fail and leave the workspace untouched', () => {
  it.each(FAILURE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    await expect(runCase(testCase)).rejects.toThrow(testCase.error ?? 'an error');
    expect(await readTree(cwd)).toEqual(asTree(testCase.files ?? {}));
  });
});
