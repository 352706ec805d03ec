/**
 * Turns zod issues into the one-line texts the reference's deserializer (serde) produces, such as
 * ``missing field `threadId` `` or ``unknown variant `x`, expected one of `a`, `b` ``, because
 * clients of the Codex app-server match on them (docs/app-server.md "Envelope and errors"). Pure
 * functions; the wording of cases serde has no equivalent for is ours. Issues carry `input` only
 * when parsed with `{ reportInput: true }`, which the dispatcher does; without it the texts are
 * less specific.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** serde's name for the JSON type of a value, with the value where serde shows it. */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'sequence';
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
    case 'string':
      return `string ${JSON.stringify(v)}`;
    case 'boolean':
      return `boolean \`${v}\``;
    case 'object':
      return 'map';
    default:
      return typeof v;
  }
}

const EXPECTED_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'a map',
  array: 'a sequence',
  null: 'null',
  bigint: 'an integer',
};

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``).join(', ');
}

function lastField(path: readonly PropertyKey[]): string {
  const key = path[path.length - 1];
  return key === undefined ? 'params' : String(key);
}

function hasInput(issue: Issue): boolean {
  return 'input' in issue && issue.input !== undefined;
}

/** Collects the allowed values of every enum/literal branch of a union, for "unknown variant". */
function variantValues(issue: Extract<Issue, { code: 'invalid_union' }>): unknown[] {
  const values: unknown[] = [];
  for (const branch of issue.errors) {
    for (const sub of branch) {
      if (sub.code === 'invalid_value' && sub.path.length === 0) values.push(...sub.values);
    }
  }
  return values;
}

/** The branch issue that got furthest into the input (longest path), as serde reports for a struct. */
function deepestBranchIssue(issue: Extract<Issue, { code: 'invalid_union' }>): Issue | undefined {
  let best: Issue | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && (!best || first.path.length > best.path.length)) best = first;
  }
  return best;
}

/**
 * Formats one issue the way serde would word it. Missing keys become ``missing field `x` `` (a
 * missing params object becomes ``missing field `params` ``), wrong types
 * ``invalid type: integer `42`, expected a string``, bad enum strings
 * ``unknown variant `x`, expected one of `a`, `b` ``.
 */
export function formatZodIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (!hasInput(issue)) return `missing field \`${lastField(issue.path)}\``;
      return `invalid type: ${describeValue(issue.input)}, expected ${EXPECTED_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      if (!hasInput(issue)) return `missing field \`${lastField(issue.path)}\``;
      if (typeof issue.input === 'string') {
        return `unknown variant \`${issue.input}\`, expected ${issue.values.length === 1 ? '' : 'one of '}${quoteList(issue.values)}`;
      }
      return `invalid value: ${hasInput(issue) ? describeValue(issue.input) : 'value'}, expected one of ${quoteList(issue.values)}`;
    case 'invalid_union': {
      if ('discriminator' in issue && issue.discriminator !== undefined && 'options' in issue) {
        const options = (issue as { options?: unknown[] }).options ?? [];
        const tag = (issue.input as Record<string, unknown> | undefined)?.[issue.discriminator];
        if (tag === undefined) return `missing field \`${issue.discriminator}\``;
        return `unknown variant \`${String(tag)}\`, expected one of ${quoteList(options)}`;
      }
      const values = variantValues(issue);
      if (values.length > 0 && typeof issue.input === 'string') {
        return `unknown variant \`${issue.input}\`, expected one of ${quoteList(values)}`;
      }
      const deepest = deepestBranchIssue(issue);
      if (deepest && deepest.path.length > 0) return formatZodIssue(deepest);
      return 'data did not match any variant';
    }
    case 'unrecognized_keys':
      return `unknown field ${quoteList(issue.keys)}`;
    case 'custom':
      // A custom check carries the reference's own text (serde's `de::Error::custom`, e.g.
      // `AbsolutePathBuf deserialized without a base path`), which names no field.
      return issue.message;
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'not_multiple_of':
    default:
      return issue.path.length > 0 ? `invalid value at \`${issue.path.join('.')}\`: ${issue.message}` : issue.message;
  }
}

/** A JSON-safe summary of an issue for an error's `data.issues` (never the offending input). */
export interface IssueSummary {
  /** The zod issue code, e.g. `invalid_type`. */
  code: string;
  /** Where in the params the problem is. */
  path: (string | number)[];
  /** zod's own message. */
  message: string;
}

/** Summarizes issues for `data.issues`; inputs are left out because they can be large. */
export function summarizeIssues(issues: readonly Issue[]): IssueSummary[] {
  return issues.map((i) => ({
    code: i.code,
    path: i.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: i.message,
  }));
}
