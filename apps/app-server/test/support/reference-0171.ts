/**
 * The old import path of the 0.171 definition check, kept for tests written against it. The one
 * implementation is `problemsAgainstDefinition` in packages/protocol/test/support/reference-schema.ts;
 * new tests import that.
 */
import { problemsAgainstDefinition } from '../../../../packages/protocol/test/support/reference-schema.js';

/** The problems of `payload` against the 0.171 definition `name` (e.g. `HookStartedNotification`); empty when it matches. */
export const problemsAgainst0171 = (name: string, payload: unknown): string[] => problemsAgainstDefinition(name, payload, '0.171');
