/**
 * A bounded text buffer for output that nobody has collected yet: it keeps the first half of its
 * byte budget (the head) and the most recent half (the tail), and counts what fell in between, so
 * a chatty background process cannot grow memory without bound (reference:
 * codex-rs/core/src/unified_exec/head_tail_buffer.rs). Sizes are UTF-8 bytes.
 */

/** What {@link HeadTailBuffer.drain} hands back. */
export interface DrainedOutput {
  /** Head and tail joined; a marker line stands where bytes were dropped. */
  text: string;
  /** Bytes received since the last drain, dropped ones included. */
  totalBytes: number;
  /** Bytes dropped from the middle. */
  omittedBytes: number;
}

/** Head + tail byte-bounded buffer of text chunks. */
export class HeadTailBuffer {
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private head: string[] = [];
  private headBytes = 0;
  private tail: { text: string; bytes: number }[] = [];
  private tailBytes = 0;
  private omittedBytes = 0;
  private headIsOpen = true;

  /** @param maxBytes total bytes kept (head gets half, tail the rest). */
  constructor(maxBytes: number) {
    this.headBudget = Math.floor(maxBytes / 2);
    this.tailBudget = maxBytes - this.headBudget;
  }

  /** Bytes currently held. */
  get retainedBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  /** True when nothing has arrived since the last drain. */
  get isEmpty(): boolean {
    return this.headBytes === 0 && this.tailBytes === 0 && this.omittedBytes === 0;
  }

  /** Appends a chunk, filling the head first, then the tail, dropping the tail's oldest bytes. */
  push(chunk: string): void {
    if (chunk === '') return;
    if (this.headIsOpen) {
      const bytes = Buffer.from(chunk, 'utf8');
      const headRoom = this.headBudget - this.headBytes;
      if (bytes.length <= headRoom) {
        this.head.push(chunk);
        this.headBytes += bytes.length;
        return;
      }
      // Split on a character boundary; once anything spills into the tail the head is closed,
      // so later small chunks cannot jump ahead of it.
      let cut = headRoom;
      while (cut > 0 && ((bytes[cut] as number) & 0xc0) === 0x80) cut -= 1;
      this.head.push(bytes.subarray(0, cut).toString('utf8'));
      this.headBytes += cut;
      this.headIsOpen = false;
      this.pushTail(bytes.subarray(cut).toString('utf8'));
      return;
    }
    this.pushTail(chunk);
  }

  private pushTail(text: string): void {
    const bytes = Buffer.byteLength(text, 'utf8');
    this.tail.push({ text, bytes });
    this.tailBytes += bytes;
    while (this.tailBytes > this.tailBudget && this.tail.length > 0) {
      const excess = this.tailBytes - this.tailBudget;
      const first = this.tail[0] as { text: string; bytes: number };
      if (first.bytes <= excess) {
        this.tail.shift();
        this.tailBytes -= first.bytes;
        this.omittedBytes += first.bytes;
        continue;
      }
      const buf = Buffer.from(first.text, 'utf8');
      let cut = excess;
      while (cut < buf.length && ((buf[cut] as number) & 0xc0) === 0x80) cut += 1;
      const kept = buf.subarray(cut).toString('utf8');
      this.tail[0] = { text: kept, bytes: buf.length - cut };
      this.tailBytes -= cut;
      this.omittedBytes += cut;
    }
  }

  /** Returns everything held and empties the buffer. */
  drain(): DrainedOutput {
    const omitted = this.omittedBytes;
    const totalBytes = this.headBytes + this.tailBytes + omitted;
    const head = this.head.join('');
    const tail = this.tail.map((part) => part.text).join('');
    let text = head + tail;
    if (omitted > 0) {
      const sep = head === '' || head.endsWith('\n') ? '' : '\n';
      text = `${head}${sep}[… ${omitted} bytes of output omitted …]\n${tail}`;
    }
    this.head = [];
    this.tail = [];
    this.headBytes = 0;
    this.tailBytes = 0;
    this.omittedBytes = 0;
    this.headIsOpen = true;
    return { text, totalBytes, omittedBytes: omitted };
  }
}
