/**
 * What the model reads after an MCP tool call (`function_call_output.output`), in the
 * reference's layout: the `Wall time` prefix, then the structured content or the raw content
 * blocks as compact JSON, with Deputy's markers (`Tool returned an error:` for `isError`, the
 * text blocks kept next to structured content when the tool has no output schema). One
 * truncation pass with a correct count. Pure.
 */
import type { FunctionOutputContent } from '../model/types.js';

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

/** The formatted output of an MCP result. */
export interface FormattedResult {
  /** The text form (what front doors show; the model's output when there is no image). */
  output: string;
  /**
   * With an image block (and a model that accepts images): the reference's array-valued output,
   * `input_text` with the prefix, then one item per block (text, image, or the block's JSON).
   */
  contentItems?: FunctionOutputContent[];
}

/** Formats a `tools/call` result. `hasOutputSchema`: the tool declares `outputSchema`. */
export function formatCallResult(
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean },
  wallMs: number,
  options: { hasOutputSchema: boolean; supportsImages: boolean; budgetChars?: number },
): FormattedResult {
  const budget = options.budgetChars ?? MCP_OUTPUT_BUDGET_CHARS;
  const content = Array.isArray(result.content) ? result.content : [];
  const hasImage = content.some((b) => (b as { type?: string }).type === 'image');
  const blocks = content.map((block) => {
    const b = block as { type?: string };
    if (b.type === 'image' && !options.supportsImages) return { type: 'text', text: '<image content omitted because you do not support image input>' };
    return block;
  });
  const marker = result.isError === true ? 'Tool returned an error:\n' : '';
  let body: string;
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    body = JSON.stringify(result.structuredContent);
    const texts = blocks.filter((b) => (b as { type?: string }).type === 'text');
    // Deputy keeps the text the reference hides when the tool declares no output schema.
    if (!options.hasOutputSchema && texts.length > 0) body += `\n${JSON.stringify(texts)}`;
  } else {
    body = JSON.stringify(blocks);
  }
  const output = truncateMiddle(`${wallTimePrefix(wallMs)}${marker}${body}`, budget);
  if (!hasImage || !options.supportsImages) return { output };
  const head = `${wallTimePrefix(wallMs).slice(0, -1)}${marker ? `\n${marker.slice(0, -1)}` : ''}`;
  const items: FunctionOutputContent[] = [{ type: 'input_text', text: head }];
  for (const block of content) {
    const b = block as { type?: string; text?: string; data?: string; mimeType?: string };
    if (b.type === 'text') items.push({ type: 'input_text', text: truncateMiddle(b.text ?? '', budget) });
    else if (b.type === 'image') items.push({ type: 'input_image', image_url: `data:${b.mimeType ?? 'image/png'};base64,${b.data ?? ''}`, detail: 'high' });
    else items.push({ type: 'input_text', text: truncateMiddle(JSON.stringify(block), budget) });
  }
  return { output, contentItems: items };
}

/** Keeps the head and tail of `text` within `budget` chars, with `…N chars truncated…` between. */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const half = Math.floor(budget / 2);
  const removed = text.length - 2 * half;
  return `${text.slice(0, half)}…${removed} chars truncated…${text.slice(text.length - half)}`;
}
