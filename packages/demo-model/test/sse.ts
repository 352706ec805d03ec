/** Test helper: reads a fetch response body as server-sent events (event name + parsed data). */

/** One parsed event; `data` is the raw text for `[DONE]`. */
export interface ParsedEvent {
  event: string | null;
  data: unknown;
}

/** Splits complete SSE text into events. */
export function parseSse(body: string): ParsedEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        if (line.startsWith('data: ')) data += line.slice(6);
      }
      return { event, data: data === '[DONE]' ? data : (JSON.parse(data) as unknown) };
    });
}

/** Reads from `reader` until `n` complete events arrived; returns them. */
export async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, n: number): Promise<ParsedEvent[]> {
  const decoder = new TextDecoder();
  let text = '';
  while (parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)).length < n) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
}

/** POSTs a JSON body to `url`. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
