/**
 * Loads the per-method wire fixtures of `test/fixtures/app-server/` (see its README). A fixture
 * lists example `params` and, for requests, example `results`; `null` in `params` stands for a
 * message without params. Test-only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The four fixture folders, one per message direction and kind. */
export type FixtureFolder = 'client-requests' | 'server-notifications' | 'server-requests' | 'client-notifications';

/** One fixture file. */
export interface WireFixture {
  /** Wire method name. */
  readonly method: string;
  /** Where the examples come from. */
  readonly source: readonly string[];
  /** Example params (`null` = no params). */
  readonly params: readonly unknown[];
  /** Example results (requests only). */
  readonly results?: readonly unknown[];
}

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/app-server/', import.meta.url));

/** File name of a method's fixture: the method with `/` replaced by `.`. */
export function fixtureFileName(method: string): string {
  return `${method.replaceAll('/', '.')}.json`;
}

/** True when `folder` has a fixture for `method`. */
export function hasFixture(folder: FixtureFolder, method: string): boolean {
  return existsSync(`${FIXTURES_DIR}${folder}/${fixtureFileName(method)}`);
}

/** Reads the fixture of `method` in `folder`; throws when it is missing or malformed. */
export function readFixture(folder: FixtureFolder, method: string): WireFixture {
  const parsed: unknown = JSON.parse(readFileSync(`${FIXTURES_DIR}${folder}/${fixtureFileName(method)}`, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`fixture ${folder}/${method} is not an object`);
  const fixture = parsed as WireFixture;
  if (fixture.method !== method || !Array.isArray(fixture.params)) {
    throw new Error(`fixture ${folder}/${method} must have method "${method}" and a params array`);
  }
  return fixture;
}

/** The methods that have a fixture in `folder`, derived from the file names. */
export function fixtureMethods(folder: FixtureFolder): string[] {
  return readdirSync(`${FIXTURES_DIR}${folder}`)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(readFileSync(`${FIXTURES_DIR}${folder}/${name}`, 'utf8')) as WireFixture).method)
    .sort();
}

/** `null` in a fixture's params list means "no params key"; this maps it back. */
export function fixtureParams(value: unknown): unknown {
  return value === null ? undefined : value;
}
