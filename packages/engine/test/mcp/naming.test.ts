/** The model-visible MCP tool names: the reference's test vectors, bit for bit. */
import { describe, expect, it } from 'vitest';
import { nameTools, sanitizeName, shortHash } from '../../src/mcp/naming.js';

const one = (server: string, tool: string) => nameTools([{ server, tool }])[0];

describe('MCP tool naming', () => {
  it('hashes the tool identity as the reference does', () => {
    expect(shortHash('odd\u0000mcp__odd__\u0000\u0000dup.x\u0000dup.x')).toBe('20ba82fe388b');
  });

  it.each([
    ['echo', 'echo'],
    ['tool-with-dash', 'tool_with_dash'],
    ['a.b/c d', 'a_b_c_d'],
    ['Ünïcode-名前', '_n_code___'],
  ])('sanitises %j to %j in the mcp__odd__ namespace', (raw, name) => {
    expect(one('odd', raw)).toMatchObject({ namespace: 'mcp__odd__', name, server: 'odd', tool: raw });
  });

  it('hashes clashing tool names', () => {
    const named = nameTools([{ server: 'odd', tool: 'dup.x' }, { server: 'odd', tool: 'dup_x' }]);
    expect(named.find((t) => t.tool === 'dup.x')?.name).toBe('dup_x_20ba82fe388b');
    expect(named.find((t) => t.tool === 'dup_x')?.name).toBe('dup_x_9e6c235ffdff');
  });

  it('cuts a long tool name to 64 characters with a hash', () => {
    const raw = 'a_really_long_tool_name_that_goes_on_and_on_and_on_beyond_the_sixty_four_character_limit_xyz';
    expect(raw.length).toBe(92);
    const t = one('odd', raw);
    expect(t?.namespace).toBe('mcp__odd__');
    expect(t?.name).toBe('a_really_long_tool_name_that_goes_on_and__5c92a4243cab');
    expect((t?.namespace.length ?? 0) + (t?.name.length ?? 0)).toBe(64);
  });

  it('hashes clashing server namespaces', () => {
    const named = nameTools([{ server: 'a-b', tool: 't' }, { server: 'a_b', tool: 't' }]);
    expect(named.find((t) => t.server === 'a-b')?.namespace).toBe('mcp__a_b_60ab36632e07__');
    expect(named.find((t) => t.server === 'a_b')?.namespace).toBe('mcp__a_b_ec4afa65682a__');
  });

  it('keeps case and does not strip a mcp__ prefix of the server name', () => {
    expect(one('Caps', 'x')?.namespace).toBe('mcp__Caps__');
    expect(one('mcp__pre', 'x')?.namespace).toBe('mcp__mcp__pre__');
  });

  it('names the tools of the reference capture’s 61-char server exactly as the reference', () => {
    const server = `s${'1234567890'.repeat(6)}`;
    const named = nameTools(['echo', 'meta', 'slow'].map((tool) => ({ server, tool })));
    expect(named.map((t) => t.namespace)).toEqual(Array(3).fill('mcp__s123456789012345678901234567890123456789012345'));
    expect(named.map((t) => t.name).sort()).toEqual(['_44fde2c32897', '_d28523990225', '_dfb8d0f3778b']);
    // The same server under mcp_readable_long_names keeps the raw tool names.
    const readable = nameTools(['echo', 'meta', 'slow'].map((tool) => ({ server, tool })), { readableLongNames: true });
    expect(readable.map((t) => t.name)).toEqual(['echo', 'meta', 'slow']);
    expect(readable[0]?.namespace).toBe(`mcp__s12345678901234567890_${shortHash(`${server}\u0000mcp__${server}__\u0000`)}__`);
  });

  it('cuts a long namespace to 51 characters with bare-hash tool names', () => {
    const t = one('s'.repeat(61), 'tool');
    expect(t?.namespace.length).toBe(51);
    expect(t?.name).toMatch(/^_[0-9a-f]{12}$/);
  });

  it('keeps tool names readable under a long server name with mcp_readable_long_names', () => {
    const server = `${'long-server-name-'.repeat(3)}end`; // 54 chars: the namespace is 61
    const tools = [{ server, tool: 'search' }, { server, tool: 'x'.repeat(30) }];
    const ref = nameTools(tools);
    expect(ref.map((t) => t.namespace.length)).toEqual([51, 51]);
    expect(ref.every((t) => /^_[0-9a-f]{12}$/.test(t.name))).toBe(true);

    const named = nameTools(tools, { readableLongNames: true });
    const ns = `${sanitizeName(`mcp__${server}__`).slice(0, 26)}_${shortHash(`${server}\u0000mcp__${server}__\u0000`)}__`;
    expect(ns).toBe('mcp__long_server_name_long_556b2d00ed02__');
    expect(named.map((t) => t.namespace)).toEqual([ns, ns]);
    expect(named.find((t) => t.tool === 'search')?.name).toBe('search');
    // A name still too long for the 23 chars left is cut with its hash, as always.
    const long = named.find((t) => t.tool.startsWith('x'));
    expect(long?.name).toMatch(/^x{10}_[0-9a-f]{12}$/);
    expect(ns.length + (long?.name.length ?? 0)).toBe(64);
    // Short namespaces are untouched.
    expect(nameTools([{ server: 'odd', tool: 'echo' }], { readableLongNames: true })[0]).toMatchObject({ namespace: 'mcp__odd__', name: 'echo' });
  });

  it('turns an empty name into _', () => {
    expect(sanitizeName('')).toBe('_');
  });
});
