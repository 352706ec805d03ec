/**
 * The human texts the app server composes for a client: the model's questions come out with
 * control, bidi and zero-width characters escaped, while ids and option labels (the answers that
 * come back) stay exact. (Approval reasons: approvals.test.ts, "what a client renders".)
 */
import { describe, expect, it } from 'vitest';
import { shownQuestions } from '../src/client-approvals.js';

describe('shownQuestions', () => {
  it('escapes header, question and option descriptions, and keeps ids and labels exact', () => {
    const bad = 'a\r\x1b[2K\u202e\u200bb';
    const shown = String.raw`a\x0d\x1b[2K\u{202e}\u{200b}b`;
    const [q] = shownQuestions([{ id: bad, header: bad, question: `one\n${bad}`, isOther: false, isSecret: false, options: [{ label: bad, description: bad }] }]);
    expect(q).toEqual({ id: bad, header: shown, question: `one\n${shown}`, isOther: false, isSecret: false, options: [{ label: bad, description: shown }] });
  });
});
