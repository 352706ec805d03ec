/**
 * Keeps the model-facing texts honest: the grammar still has the reference's rules, and every
 * example patch in the tool description and the instructions parses with our parser.
 */
import { describe, expect, it } from 'vitest';
import { APPLY_PATCH_LARK_GRAMMAR } from '../../src/tools/apply-patch/grammar.js';
import { APPLY_PATCH_INSTRUCTIONS, APPLY_PATCH_TOOL_DESCRIPTION } from '../../src/tools/apply-patch/instructions.js';
import { parsePatch } from '../../src/tools/apply-patch/parser.js';

/** The `*** Begin Patch` … `*** End Patch` blocks of a text that contain a file section. */
function examplePatches(text: string): string[] {
  return [...text.matchAll(/^\*\*\* Begin Patch\n[\s\S]*?^\*\*\* End Patch$/gm)]
    .map((m) => m[0])
    .filter((block) => /^\*\*\* (Add|Update|Delete) File: /m.test(block));
}

describe('apply_patch grammar and instructions', () => {
  it('declares every rule of the reference grammar', () => {
    for (const rule of [
      'start: begin_patch hunk+ end_patch',
      'begin_patch: "*** Begin Patch" LF',
      'end_patch: "*** End Patch" LF?',
      'hunk: add_hunk | delete_hunk | update_hunk',
      'add_hunk: "*** Add File: " filename LF add_line+',
      'delete_hunk: "*** Delete File: " filename LF',
      'update_hunk: "*** Update File: " filename LF change_move? change?',
      'change_move: "*** Move to: " filename LF',
      'change: (change_context | change_line)+ eof_line?',
      'change_context: ("@@" | "@@ " /(.+)/) LF',
      'change_line: ("+" | "-" | " ") /(.*)/ LF',
      'eof_line: "*** End of File" LF',
      '%import common.LF',
    ]) {
      expect(APPLY_PATCH_LARK_GRAMMAR).toContain(rule);
    }
  });

  it('gives example patches that parse, in the tool description and the instructions', () => {
    const examples = [...examplePatches(APPLY_PATCH_TOOL_DESCRIPTION), ...examplePatches(APPLY_PATCH_INSTRUCTIONS)];
    expect(examples.length).toBe(2);
    for (const example of examples) expect(parsePatch(example).hunks.length).toBeGreaterThan(0);
  });

  it('shows a multi-@@ chunk in the instructions that parses into nested contexts', () => {
    const start = APPLY_PATCH_INSTRUCTIONS.indexOf('@@ class Repository');
    const block = APPLY_PATCH_INSTRUCTIONS.slice(start, APPLY_PATCH_INSTRUCTIONS.indexOf('\n\n', start));
    const parsed = parsePatch(`*** Begin Patch\n*** Update File: repo.py\n${block}\n*** End Patch`);
    const hunk = parsed.hunks[0];
    expect(hunk?.type === 'update' ? hunk.chunks[0]?.contexts : null).toEqual(['class Repository', '    def save(self):']);
  });
});
