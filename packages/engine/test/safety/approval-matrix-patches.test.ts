/**
 * The approval matrix for patches, through real turns under a real workspace-write sandbox:
 * every policy × (a patch inside, a patch outside the writable roots) × every
 * answer where an approval is asked. The table and the checks live in `matrix.ts`.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ANSWERS, cellTitle, checkCell, isAskingCell, POLICIES, type ScenarioName } from './matrix.js';
import { requireBwrap, SafetyHarness } from './harness.js';

const SCENARIOS: ScenarioName[] = ['patch inside', 'patch outside'];

let h: SafetyHarness;
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
});

describe.each(POLICIES)('under approval policy %s', (policy) => {
  for (const scenario of SCENARIOS) {
    if (isAskingCell(policy, scenario)) {
      it.each(ANSWERS)(cellTitle(policy, scenario), async (answer) => {
        await checkCell(h, policy, scenario, answer);
      });
    } else {
      it(cellTitle(policy, scenario), async () => {
        await checkCell(h, policy, scenario, null);
      });
    }
  }
});
