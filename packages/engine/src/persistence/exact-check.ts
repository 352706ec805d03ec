/**
 * A fast pre-check derived from a zod schema: `compileExactCheck(schema)` gives a function that
 * says true only when `schema.parse(value)` would succeed and return a value equal to `value`
 * with the same keys in the same order (nothing stripped, reordered or defaulted). The rollout
 * reader then keeps the parsed JSON as it is and skips zod, which builds a copy of every object;
 * on false it runs zod as before, so results never differ. Only the schema kinds the rollout
 * payloads use are understood (objects, strings, numbers with integer and range checks, literals, enums, booleans,
 * nullable, optional, defaults (the value must be there), arrays, discriminated unions, unknown);
 * a schema with anything else (a refinement, a transform, a record, …) compiles to a check that always says false.
 */
import type { z } from 'zod';

/** True when zod would return an equal value with the same key order. */
export type ExactCheck = (value: unknown) => boolean;

const NEVER: ExactCheck = () => false;

/** A minimal view of a zod v4 schema's definition (`schema._zod.def`). */
interface Def {
  type: string;
  checks?: readonly { _zod: { def: { check?: string; format?: string; value?: unknown; inclusive?: boolean } } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: unknown;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  discriminator?: string;
  values?: readonly unknown[];
  entries?: Record<string, unknown>;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The check of one object key: its value's check, and whether the key may be left out. */
interface KeyCheck {
  key: string;
  check: ExactCheck;
  optional: boolean;
}

function compileObject(def: Def): ExactCheck | null {
  if (def.catchall !== undefined || !def.shape) return null;
  const keys: KeyCheck[] = [];
  for (const [key, schema] of Object.entries(def.shape)) {
    const inner = defOf(schema);
    // An optional key may be absent (zod then leaves it out too); present, its value is checked.
    // A key with a default must be present (zod would fill it in).
    const optional = inner.type === 'optional';
    const check = compile(optional || inner.type === 'default' ? (inner.innerType as z.ZodType) : schema);
    if (!check) return null;
    keys.push({ key, check, optional });
  }
  return (value) => {
    if (!isPlainObject(value)) return false;
    // Every own key must be a schema key, in schema order (zod's output order), and none missing.
    let k = 0;
    for (const key in value) {
      while (k < keys.length && (keys[k] as KeyCheck).key !== key) {
        if (!(keys[k] as KeyCheck).optional) return false;
        k++;
      }
      if (k === keys.length) return false;
      const entry = keys[k] as KeyCheck;
      if (!entry.check(value[key])) return false;
      k++;
    }
    for (; k < keys.length; k++) if (!(keys[k] as KeyCheck).optional) return false;
    return true;
  };
}

function compileUnion(def: Def): ExactCheck | null {
  const discriminator = def.discriminator;
  if (discriminator === undefined || !def.options) return null;
  const byTag = new Map<unknown, ExactCheck>();
  for (const option of def.options) {
    const optionDef = defOf(option);
    const tag = optionDef.shape?.[discriminator];
    const tagDef = tag ? defOf(tag) : null;
    const check = compile(option);
    if (!check || tagDef?.type !== 'literal' || !tagDef.values) return null;
    for (const value of tagDef.values) if (!byTag.has(value)) byTag.set(value, check);
  }
  return (value) => {
    if (!isPlainObject(value)) return false;
    const check = byTag.get(value[discriminator]);
    return check !== undefined && check(value);
  };
}

function compileNumber(def: Def): ExactCheck | null {
  const tests: ((value: number) => boolean)[] = [Number.isFinite];
  for (const check of def.checks ?? []) {
    const { check: kind, format, value: bound, inclusive } = check._zod.def;
    if (kind === 'number_format' && format === 'safeint') tests.push(Number.isSafeInteger);
    else if (kind === 'greater_than' && typeof bound === 'number') tests.push(inclusive ? (v) => v >= bound : (v) => v > bound);
    else if (kind === 'less_than' && typeof bound === 'number') tests.push(inclusive ? (v) => v <= bound : (v) => v < bound);
    else return null;
  }
  // The common case (an integer, no bounds) without the loop: it runs on every time and count.
  if (tests.length === 2 && tests[1] === Number.isSafeInteger) return (value) => Number.isSafeInteger(value);
  return (value) => typeof value === 'number' && tests.every((test) => test(value));
}

/** The check of `schema`, or null when it uses a kind this module does not understand. */
function compile(schema: z.ZodType): ExactCheck | null {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return def.checks?.length ? null : (value) => typeof value === 'string';
    case 'boolean':
      return (value) => typeof value === 'boolean';
    case 'number':
      return compileNumber(def);
    case 'unknown':
      return () => true;
    case 'literal': {
      const values = def.values ?? [];
      return (value) => values.includes(value);
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (!values.every((value) => typeof value === 'string')) return null;
      const set = new Set<unknown>(values);
      return (value) => set.has(value);
    }
    case 'nullable': {
      const inner = def.innerType ? compile(def.innerType) : null;
      return inner && ((value) => value === null || inner(value));
    }
    case 'optional':
    case 'default': {
      // Outside an object an absent value is undefined, which JSON never holds: leave it to zod.
      const inner = def.innerType ? compile(def.innerType) : null;
      return inner && ((value) => value !== undefined && inner(value));
    }
    case 'array': {
      if (def.checks?.length) return null;
      const element = def.element ? compile(def.element) : null;
      return (
        element &&
        ((value) => {
          if (!Array.isArray(value)) return false;
          for (const item of value) if (!element(item)) return false;
          return true;
        })
      );
    }
    case 'object':
      return compileObject(def);
    case 'union':
      return compileUnion(def);
    default:
      return null;
  }
}

/** Compiles the exact check of `schema` (see the module comment); unknown kinds give a check that is always false. */
export function compileExactCheck(schema: z.ZodType): ExactCheck {
  return compile(schema) ?? NEVER;
}
