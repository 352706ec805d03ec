/**
 * A seeded generator of hostile JSON-RPC frames for robustness tests and benches: malformed
 * JSON, wrong envelope and param types, huge strings, NUL and lone surrogates, invalid UTF-8
 * (byte carriers only), unknown methods, extreme ids (beyond ±(2^53−1), floats, null, objects),
 * deep nesting, batches, stray responses. Frame `index` of seed `seed` is a pure function of the
 * two, so any failure replays from (seed, index) alone. Methods are drawn from a list without side
 * effects outside the server's home (no command execution, no file writes, no turns).
 */

/** One generated frame. */
export interface HostileFrame {
  /** Position in the sequence; with the seed, all that is needed to regenerate it. */
  index: number;
  /** What to send: text (one line or text frame), or raw bytes (byte carriers only). */
  data: string | Buffer;
  /** The frame is a well-formed request the server must answer; `idText` is its id's JSON text. */
  expectsAnswer: boolean;
  idText?: string;
  /** A short description of the kind, for failure reports. */
  kind: string;
}

/** Which carrier the frames are for: raw bytes are only generated for byte carriers (stdio). */
export type HostileCarrier = 'bytes' | 'text';

/** A small, fast PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Read-only or harmless methods of the app-server, fed random params. */
export const HOSTILE_METHODS = [
  'thread/list',
  'thread/read',
  'thread/loaded/list',
  'thread/turns/list',
  'thread/name/set',
  'thread/archive',
  'thread/unarchive',
  'thread/unsubscribe',
  'thread/rollback',
  'turn/interrupt',
  'model/list',
  'config/read',
  'account/read',
  'experimentalFeature/list',
  'collaborationMode/list',
  'skills/list',
  'fuzzyFileSearch/sessionStop',
  'initialize',
];

const EXTREME_NUMBERS = ['0', '-0', '1e308', '-1e308', '1e-320', '4294967296', '-1', '9007199254740993', '18446744073709551615', '3.5'];

/** One random JSON value (text) of bounded depth. */
function randomValue(rng: () => number, depth: number): string {
  const pick = Math.floor(rng() * (depth > 2 ? 6 : 9));
  switch (pick) {
    case 0:
      return 'null';
    case 1:
      return rng() < 0.5 ? 'true' : 'false';
    case 2:
      return EXTREME_NUMBERS[Math.floor(rng() * EXTREME_NUMBERS.length)] as string;
    case 3:
      return JSON.stringify(randomString(rng, 40));
    case 4:
      return JSON.stringify('x'.repeat(Math.floor(rng() * 2000)));
    case 5:
      return JSON.stringify(['\u0000', '\ud800', '\udfff', '\u2028', '"\\', '../../etc/passwd', '%s%n', ''][Math.floor(rng() * 8)]);
    case 6:
      return `[${Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, depth + 1)).join(',')}]`;
    default:
      return randomParams(rng, depth + 1);
  }
}

const KEYS = ['threadId', 'cursor', 'limit', 'searchTerm', 'sortKey', 'name', 'archived', 'cwd', 'numTurns', 'turnId', 'includeTurns', 'clientInfo', 'sessionId', 'modelProviders', 'sourceKinds', 'x'];

/** A params object with random known and unknown keys. */
function randomParams(rng: () => number, depth = 0): string {
  const n = Math.floor(rng() * 5);
  const members = Array.from({ length: n }, () => `${JSON.stringify(KEYS[Math.floor(rng() * KEYS.length)])}:${randomValue(rng, depth + 1)}`);
  return `{${members.join(',')}}`;
}

function randomString(rng: () => number, max: number): string {
  const length = Math.floor(rng() * max);
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(rng() < 0.9 ? 32 + Math.floor(rng() * 95) : Math.floor(rng() * 0xffff));
  return out;
}

/** A unique id for frame `index` that must be echoed exactly; sometimes beyond ±(2^53−1). */
function answerId(rng: () => number, index: number): string {
  const r = rng();
  if (r < 0.25) return `9${String(index).padStart(8, '0')}0000000000`; // > 2^53
  if (r < 0.35) return `-9${String(index).padStart(8, '0')}0000000000`;
  if (r < 0.5) return String(1_000_000 + index);
  return JSON.stringify(`f${index}-${'é\u0000'.repeat(Math.floor(rng() * 3))}`);
}

/** Frame `index` of the sequence of `seed`. */
export function hostileFrame(seed: number, index: number, carrier: HostileCarrier): HostileFrame {
  const rng = seededRandom((seed * 1_000_003 + index) >>> 0);
  const kind = Math.floor(rng() * 14);
  const method = HOSTILE_METHODS[Math.floor(rng() * HOSTILE_METHODS.length)] as string;
  const id = answerId(rng, index);
  const request = (params: string): string => `{"method":${JSON.stringify(method)},"id":${id},"params":${params}}`;
  switch (kind) {
    case 0: {
      const whole = request(randomParams(rng));
      return { index, kind: 'truncated JSON', data: whole.slice(0, Math.max(1, Math.floor(rng() * (whole.length - 1)))), expectsAnswer: false };
    }
    case 1:
      if (carrier === 'bytes') {
        const bytes = Buffer.from(request('{"searchTerm":"AB"}'), 'utf8');
        const at = bytes.indexOf('AB');
        bytes[at] = 0xff;
        bytes[at + 1] = 0xc0;
        // Invalid UTF-8 inside a string decodes to U+FFFD: still a well-formed request.
        return { index, kind: 'invalid UTF-8 in a string', data: bytes, expectsAnswer: true, idText: id };
      }
      return { index, kind: 'unknown method', data: `{"method":"nope/${index}","id":${id}}`, expectsAnswer: true, idText: id };
    case 2:
      return { index, kind: 'unknown method', data: `{"method":${JSON.stringify(randomString(rng, 30))},"id":${id},"params":${randomParams(rng)}}`, expectsAnswer: true, idText: id };
    case 3:
    case 4:
    case 5:
      return { index, kind: `${method} with random params`, data: request(randomParams(rng)), expectsAnswer: true, idText: id };
    case 6:
      return { index, kind: `${method} with params of the wrong type`, data: request(['[]', '"x"', '7', 'true'][Math.floor(rng() * 4)] as string), expectsAnswer: true, idText: id };
    case 7: {
      const size = rng() < 0.2 ? 1024 * 1024 : 16 * 1024 + Math.floor(rng() * 200 * 1024);
      return { index, kind: `${method} with a ${size}-char string`, data: request(`{"searchTerm":${JSON.stringify('q'.repeat(size))},"threadId":"t"}`), expectsAnswer: true, idText: id };
    }
    case 8: {
      const bad = ['null', '1.5', '{}', '[]', 'true', '1e400', '"a"'][Math.floor(rng() * 7)] as string;
      // Not matched: `"a"` repeats across frames, and the others are not ids at all.
      return { index, kind: `id ${bad}`, data: `{"method":${JSON.stringify(method)},"id":${bad},"params":{}}`, expectsAnswer: false };
    }
    case 9: {
      const depth = 100 + Math.floor(rng() * 20_000);
      return { index, kind: `nesting ${depth} deep`, data: `{"method":"thread/list","id":${id},"params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`, expectsAnswer: true, idText: id };
    }
    case 10:
      return { index, kind: 'batch', data: `[${request('{}')},${request('{}')}]`, expectsAnswer: false };
    case 11:
      return { index, kind: 'notification', data: `{"method":${JSON.stringify(method)},"params":${randomParams(rng)}}`, expectsAnswer: false };
    case 12:
      return { index, kind: 'stray response', data: `{"id":${id},"result":${randomValue(rng, 0)}}`, expectsAnswer: false };
    default:
      return { index, kind: 'not an object', data: randomValue(rng, 0), expectsAnswer: false };
  }
}
