/**
 * The Lark grammar sent with the freeform `apply_patch` tool
 * (`format: { type: 'grammar', syntax: 'lark', definition }`), so the model's output is constrained
 * to well-formed patches. It is the interface the reference publishes (Codex CLI 0.130.0 sends this
 * grammar with its freeform `apply_patch` tool); the parser in `parser.ts` accepts everything it
 * generates and is more lenient than it.
 */

/** Lark definition of the apply_patch language. */
export const APPLY_PATCH_LARK_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;
