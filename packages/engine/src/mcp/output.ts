/**
 * What the model reads after an MCP tool call (`function_call_output.output`), in the
 * reference's layout: the `Wall time` prefix, then the structured content or the raw content
 * blocks as compact JSON, with Deputy's markers (`Tool returned an error:` for `isError`, the
 * text blocks kept next to structured content when the tool has no output schema). One
 * truncation pass with a correct count. Pure.
 */

/** The default budget for one output, in characters (head and tail halves). */
export const MCP_OUTPUT_BUDGET_CHARS = 12_000;

/** The `Wall time` prefix for a call that took `ms`. */
export function wallTimePrefix(ms: number): string {
  return `Wall time: ${(ms / 1000).toFixed(4)} seconds\nOutput:\n`;
}

/** A text-only body: `[{"type":"text","text":…}]`. */
export function textBody(text: string): string {
  return JSON.stringify([{ type: 'text', text }]);
}

/** The formatted output of an MCP result, and the image data URLs it carried. */
export interface FormattedResult {
  output: string;
  images: string[];
}

/** Formats a `tools/call` result (§8.1). `hasOutputSchema`: the tool declares `outputSchema`. */
export function formatCallResult(
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean },
  wallMs: number,
  options: { hasOutputSchema: boolean; supportsImages: boolean },
): FormattedResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const images: string[] = [];
  const blocks = content.map((block) => {
    const b = block as { type?: string; data?: string; mimeType?: string };
    if (b.type !== 'image') return block;
    if (!options.supportsImages) return { type: 'text', text: '<image content omitted because you do not support image input>' };
    images.push(`data:${b.mimeType ?? 'image/png'};base64,${b.data ?? ''}`);
    return block;
  });
  let body: string;
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    body = JSON.stringify(result.structuredContent);
    const texts = blocks.filter((b) => (b as { type?: string }).type === 'text');
    // Deputy keeps the text the reference hides when the tool declares no output schema.
    if (!options.hasOutputSchema && texts.length > 0) body += `\n${JSON.stringify(texts)}`;
  } else {
    body = JSON.stringify(blocks);
  }
  const marker = result.isError === true ? 'Tool returned an error:\n' : '';
  return { output: truncateMiddle(`${wallTimePrefix(wallMs)}${marker}${body}`, MCP_OUTPUT_BUDGET_CHARS), images };
}

/** Keeps the head and tail of `text` within `budget` chars, with `…N chars truncated…` between. */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const half = Math.floor(budget / 2);
  const removed = text.length - 2 * half;
  return `${text.slice(0, half)}…${removed} chars truncated…${text.slice(text.length - half)}`;
}
