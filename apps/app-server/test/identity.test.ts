/** The home and version the app-server reports before the engine is loaded agree with the engine's. */
import { describe, expect, it } from 'vitest';
import { DEPUTY_VERSION, resolveHome } from '@deputy/engine';
import { APP_SERVER_VERSION, deputyHomeOf } from '../src/identity.js';

describe('identity without the engine', () => {
  it('reports the engine version', () => {
    expect(APP_SERVER_VERSION).toBe(DEPUTY_VERSION);
  });

  it('finds the same home as the engine for every kind of environment', () => {
    const envs: NodeJS.ProcessEnv[] = [
      { DEPUTY_HOME: '/srv/deputy' },
      { DEPUTY_HOME: 'relative/home', HOME: '/home/a' },
      { DEPUTY_HOME: '   ', HOME: '/home/b' },
      { DEPUTY_HOME: '', HOME: '/home/c' },
      { HOME: '/home/d' },
      { HOME: '' },
      {},
    ];
    for (const env of envs) expect(deputyHomeOf(env)).toBe(resolveHome(env));
  });
});
