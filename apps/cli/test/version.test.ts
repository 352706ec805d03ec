import { describe, expect, it } from 'vitest';
import { DEPUTY_VERSION } from '@deputy/engine';
import { CLI_VERSION } from '../src/usage-error.js';

describe('the CLI version', () => {
  it('matches the engine version written into rollouts', () => {
    expect(CLI_VERSION).toBe(DEPUTY_VERSION);
  });
});
