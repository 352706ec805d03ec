/**
 * One SKILL.md: its YAML front matter (between `---` lines) read into plain values and validated
 * with zod: `name` (at most 64 characters), `description` (at most 1024), optional `metadata`
 * (`short-description` is what lists show). Reads the subset of YAML skills use: `key: value`
 * lines, quoted values, one level of nesting, and `|` / `>` block values. A file that does not
 * pass gives an error message, never an exception.
 */
import { z } from 'zod';

/** Longest skill name (the reference's limit). */
export const MAX_SKILL_NAME_CHARS = 64;
/** Longest description. */
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;

/** The front matter a SKILL.md must carry. */
export const SkillFrontMatterSchema = z.object({
  name: z.string().trim().min(1, 'missing field `name`').max(MAX_SKILL_NAME_CHARS, `name exceeds ${MAX_SKILL_NAME_CHARS} characters`),
  description: z
    .string()
    .trim()
    .min(1, 'missing field `description`')
    .max(MAX_SKILL_DESCRIPTION_CHARS, `description exceeds ${MAX_SKILL_DESCRIPTION_CHARS} characters`),
  metadata: z.object({ "short-description": z.string().trim().max(MAX_SKILL_DESCRIPTION_CHARS).optional() }).optional(),
});
export type SkillFrontMatter = z.infer<typeof SkillFrontMatterSchema>;

type YamlValue = string | Record<string, string>;

function unquote(raw: string): string {
  const v = raw.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  return v;
}

/** Reads a `|` or `>` block value: the following lines indented deeper than `indent`. */
function blockValue(lines: readonly string[], start: number, indent: number, folded: boolean): { value: string; next: number } {
  const body: string[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() !== '' && line.length - line.trimStart().length <= indent) break;
    body.push(line.trim());
  }
  return { value: (folded ? body.join(' ') : body.join('\n')).trim(), next: i };
}

/** The front matter's text lines, or an error when the file has none. */
function frontMatterLines(text: string): string[] | { error: string } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { error: 'missing YAML frontmatter delimited by ---' };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end < 0) return { error: 'unterminated YAML frontmatter: no closing ---' };
  return lines.slice(1, end);
}

/** Parses the front matter's keys into strings and one level of nested tables. */
function readYamlSubset(lines: readonly string[]): Record<string, YamlValue> {
  const out: Record<string, YamlValue> = {};
  let section: Record<string, string> | null = null;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] ?? '';
    const match = /^(\s*)([A-Za-z0-9_.-]+)\s*:\s*(.*)$/.exec(line);
    if (!match || line.trim().startsWith('#')) {
      i++;
      continue;
    }
    const [, indentText = '', key = '', rest = ''] = match;
    const indent = indentText.length;
    let value = rest.replace(/\s+#.*$/, '').trim();
    i++;
    if (/^[|>][+-]?$/.test(value)) {
      const block = blockValue(lines, i, indent, value.startsWith('>'));
      value = block.value;
      i = block.next;
    } else {
      value = unquote(rest);
    }
    if (indent === 0) {
      if (rest.trim() === '') {
        section = {};
        out[key] = section;
      } else {
        section = null;
        out[key] = value;
      }
    } else if (section) {
      section[key] = value;
    }
  }
  return out;
}

/** Parses and validates the front matter of a SKILL.md; an error message when it does not pass. */
export function parseSkillFile(text: string): SkillFrontMatter | { error: string } {
  const lines = frontMatterLines(text);
  if (!Array.isArray(lines)) return lines;
  const parsed = SkillFrontMatterSchema.safeParse(readYamlSubset(lines));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'frontmatter';
  const message = issue?.code === 'invalid_type' && issue.input === undefined ? `missing field \`${field}\`` : (issue?.message ?? 'invalid');
  return { error: `invalid SKILL.md frontmatter: ${message.startsWith('missing') ? message : `${field}: ${message}`}` };
}

