/**
 * Model-visible names of MCP tools: the reference's algorithm (Codex 0.130.0) bit for bit,
 * sanitising, namespace and tool clash hashing, and the 64-character limit. Pure; the caller
 * keeps the returned map from (namespace, name) to (server, raw tool name) for routing.
 */
import { createHash } from 'node:crypto';

/** One tool to name: its server and raw MCP tool name. */
export interface RawToolRef {
  server: string;
  tool: string;
}

/** A named tool: the model-visible namespace and name, and what it routes to. */
export interface NamedTool extends RawToolRef {
  namespace: string;
  name: string;
}

const MAX_LEN = 64;
const HASH_LEN = 12;
const NUL = '\u0000';

/** Replaces every char outside `[A-Za-z0-9_]` with `_` (one per Unicode scalar); `''` → `_`. */
export function sanitizeName(raw: string): string {
  let out = '';
  for (const ch of raw) out += /^[A-Za-z0-9_]$/.test(ch) ? ch : '_';
  return out === '' ? '_' : out;
}

/** The first 12 lowercase hex chars of the SHA-1 of `x`'s UTF-8 bytes. */
export function shortHash(x: string): string {
  return createHash('sha1').update(x, 'utf8').digest('hex').slice(0, HASH_LEN);
}

function namespaceIdentity(server: string): string {
  return `${server}${NUL}mcp__${server}__${NUL}`;
}

function toolIdentity(server: string, tool: string): string {
  return `${namespaceIdentity(server)}${NUL}${tool}${NUL}${tool}`;
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Namespaces longer than this are shortened under `readableLongNames`. */
const READABLE_NS_MAX = 40;
/** How much of a long namespace `readableLongNames` keeps before its hash. */
const READABLE_NS_KEEP = 26;

/**
 * Names every tool; the result is in tool-identity order. `readableLongNames`
 * (`mcp_readable_long_names`, Deputy's opt-in): a namespace longer than 40 chars becomes its first
 * 26 chars, `_`, the hash of its namespace identity and `__` (41 chars), so its tools keep
 * readable names within the 64-char limit where the reference cuts the namespace to 51 chars and
 * leaves bare-hash tool names.
 */
export function nameTools(tools: readonly RawToolRef[], options: { readableLongNames?: boolean } = {}): NamedTool[] {
  const unique = new Map<string, RawToolRef>();
  for (const t of tools) unique.set(toolIdentity(t.server, t.tool), t);
  const entries = [...unique.entries()].map(([identity, ref]) => ({
    identity,
    ref,
    nsIdentity: namespaceIdentity(ref.server),
    ns: sanitizeName(`mcp__${ref.server}__`),
    nm: sanitizeName(ref.tool),
  }));

  // Namespace clash: different namespace identities with the same sanitised namespace.
  const nsOwners = new Map<string, Set<string>>();
  for (const e of entries) (nsOwners.get(e.ns) ?? nsOwners.set(e.ns, new Set()).get(e.ns))?.add(e.nsIdentity);
  for (const e of entries) {
    if ((nsOwners.get(e.ns)?.size ?? 0) > 1) e.ns = `${e.ns.replace(/__$/, '')}_${shortHash(e.nsIdentity)}__`;
  }
  if (options.readableLongNames) {
    for (const e of entries) if (e.ns.length > READABLE_NS_MAX) e.ns = `${e.ns.slice(0, READABLE_NS_KEEP)}_${shortHash(e.nsIdentity)}__`;
  }

  // Tool clash: different tool identities with the same (ns, nm).
  const toolOwners = new Map<string, Set<string>>();
  for (const e of entries) {
    const key = `${e.ns}${NUL}${e.nm}`;
    (toolOwners.get(key) ?? toolOwners.set(key, new Set()).get(key))?.add(e.identity);
  }
  for (const e of entries) {
    if ((toolOwners.get(`${e.ns}${NUL}${e.nm}`)?.size ?? 0) > 1) e.nm = `${e.nm}_${shortHash(e.identity)}`;
  }

  entries.sort((a, b) => byteCompare(a.identity, b.identity));
  const used = new Set<string>();
  const named: NamedTool[] = [];
  for (const e of entries) {
    let { ns, nm } = e;
    if (ns.length + nm.length > MAX_LEN || used.has(ns + nm)) {
      for (let n = 0; ; n++) {
        const suffix = `_${shortHash(n === 0 ? e.identity : `${e.identity}${NUL}${n}`)}`;
        if (MAX_LEN - e.ns.length >= HASH_LEN + 1) {
          ns = e.ns;
          nm = e.nm.slice(0, MAX_LEN - e.ns.length - (HASH_LEN + 1)) + suffix;
        } else {
          ns = e.ns.slice(0, MAX_LEN - HASH_LEN - 1);
          nm = suffix;
        }
        if (!used.has(ns + nm)) break;
      }
    }
    used.add(ns + nm);
    named.push({ ...e.ref, namespace: ns, name: nm });
  }
  return named;
}
