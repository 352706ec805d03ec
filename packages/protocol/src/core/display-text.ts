/**
 * The one neutraliser for text a person reads before a decision: a command, a directory, a
 * reason, a patch path, an MCP tool's name and arguments, an elicitation's message and fields.
 * Such text comes from the model, the workspace or an MCP server, and a terminal or an editor
 * obeys what is in it: a carriage return or an ANSI sequence redraws the line, a bidi override
 * reverses it, a zero-width or format character hides, so the person could approve one command
 * while another runs. Here every such character is shown as a visible escape instead, and the
 * rest is left as it is, so what is shown is exactly what runs.
 *
 * Escaped: C0 controls (CR, ESC, NUL…; LF and TAB too, except in the multi-line form), DEL, C1
 * controls (U+0080–U+009F, the 8-bit CSI U+009B among them), format characters (category Cf:
 * bidi marks, overrides and isolates, zero-width characters, the BOM, tags), every other default
 * ignorable character (variation selectors, Hangul fillers…), line and paragraph separators,
 * spaces other than U+0020 (they look like a space but do not split words), lone surrogates,
 * private-use and unassigned code points.
 *
 * The escapes are `\xHH` below U+0100 and `\u{H…}` above (ESC is `\x1b`, CR `\x0d`, U+202E
 * `\u{202e}`). The rendering is injective, so two different texts never look the same: a
 * backslash that the text itself has is shown as it is, except right before an `x` or a `u`,
 * where it would read as the start of an escape; there it is shown as `\x5c`. Hex escapes are
 * used even for CR, LF and TAB because `\n` and `\t` are common in real commands (`printf
 * '%s\n'`) and must keep looking like themselves. Pure functions, no I/O.
 */

/** Spaces other than U+0020 (category Zs): shown escaped, because they look like a word break. */
const OTHER_SPACES = '\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';

/** What is always escaped (LF and TAB are added for the one-line form). */
const HIDDEN = `\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}${OTHER_SPACES}`;

/** One-line form: everything hidden, LF and TAB included (they are Cc), and a backslash before `x`/`u`. */
const ONE_LINE = new RegExp(`[${HIDDEN}]|\\\\(?=[xu])`, 'gu');

/** Multi-line form: the same, but LF and TAB are kept as they are. */
const MULTI_LINE = new RegExp(`(?![\\n\\t])[${HIDDEN}]|\\\\(?=[xu])`, 'gu');

/** Same set as {@link HIDDEN}, for JSON text (where a backslash is already escaped by JSON). */
const JSON_HIDDEN = new RegExp(`[${HIDDEN}]`, 'gu');

/** The visible escape of one code point: `\xHH` below U+0100, else `\u{H…}` (lower-case hex). */
function escapeCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Text for one line of a terminal prompt or a title: every control, format, invisible or
 * look-alike-space character escaped (LF and TAB too), and a backslash before `x` or `u` shown
 * as `\x5c`. Printable text, spaces and other backslashes are unchanged.
 */
export function displayText(text: string): string {
  return text.replace(ONE_LINE, escapeCodePoint);
}

/**
 * Like {@link displayText}, but line feeds and tabs are kept, for text shown as a block (a
 * message, a diff). A carriage return is still escaped, so no line can be overwritten.
 */
export function displayLines(text: string): string {
  return text.replace(MULTI_LINE, escapeCodePoint);
}

/**
 * A JSON value as compact JSON text safe to show: `JSON.stringify` escapes C0 controls, quotes,
 * backslashes and lone surrogates; the characters it leaves raw (DEL, C1, format characters,
 * separators…) are written as JSON `\uXXXX` escapes too, so the text is still JSON for the same
 * value, and different values never look the same. `undefined` (or a function) shows as ''.
 */
export function displayJson(value: unknown): string {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) return '';
  return json.replace(JSON_HIDDEN, (char) =>
    Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/**
 * An elicitation form (a flat JSON Schema object) with its display texts neutralised: the form's
 * and each property's `title` and `description`, `enumNames`, and the `title` of each `oneOf` /
 * `anyOf` choice. Everything else (names, types, `enum` and `const` values, defaults) is data
 * the answer must match, and is kept exactly.
 */
export function displayFormSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out = displayField(schema) as Record<string, unknown>;
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return out;
  const shown = Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([name, field]) => [name, displayField(field)]));
  return { ...out, properties: shown };
}

/** One schema node with its `title`, `description`, `enumNames` and choice titles neutralised. */
function displayField(field: unknown): unknown {
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return field;
  const out: Record<string, unknown> = { ...(field as Record<string, unknown>) };
  for (const key of ['title', 'description'] as const) if (typeof out[key] === 'string') out[key] = displayText(out[key]);
  if (Array.isArray(out.enumNames)) out.enumNames = out.enumNames.map((n: unknown) => (typeof n === 'string' ? displayText(n) : n));
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((choice) => displayField(choice));
  }
  if (typeof out.items === 'object' && out.items !== null) out.items = displayField(out.items);
  return out;
}
