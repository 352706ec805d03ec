/**
 * The prose that teaches a model the patch language: a short description for the freeform tool
 * spec and a longer guide for models that call apply_patch through the shell tool. Our own words;
 * only the format itself matches the reference.
 */

/** Description of the freeform `apply_patch` tool (the grammar travels separately). */
export const APPLY_PATCH_TOOL_DESCRIPTION = `Edit files by sending a patch. This is a freeform tool: send the patch text itself, not JSON.

The patch starts with "*** Begin Patch" and ends with "*** End Patch". In between, one section per file:
- "*** Add File: <path>" followed by the new file's lines, each prefixed with "+".
- "*** Delete File: <path>" with nothing after it.
- "*** Update File: <path>", optionally "*** Move to: <new path>" to rename it, then one or more changes.
  Each change starts with "@@" (optionally "@@ <a line near the change, such as a function or class header>")
  and lists lines prefixed with " " (unchanged context), "-" (removed) or "+" (added).
  Give about three lines of context before and after each edit so it can be located.
  If the edit is at the very end of the file, finish the change with "*** End of File".

Paths are relative to the working directory. Example:
*** Begin Patch
*** Update File: src/greet.py
@@ def greet(name):
-    print("Hi " + name)
+    print(f"Hello, {name}!")
*** End Patch`;

/** Longer guide for models that invoke apply_patch as a shell command. */
export const APPLY_PATCH_INSTRUCTIONS = `## apply_patch

Change files with the \`apply_patch\` command. Its argument is a patch in a small, file-oriented format
that is simpler than a unified diff: no line numbers, only the lines that identify each place and the
edit to make there.

A patch is wrapped in an envelope:

*** Begin Patch
[one section per file]
*** End Patch

Each section starts with a header that says what to do with the file:

*** Add File: <path>      create the file; every following line is a "+" line holding its content
*** Delete File: <path>   delete the file; nothing follows
*** Update File: <path>   edit the file in place; may be followed by "*** Move to: <new path>" to rename it

An update is a series of changes. Each change begins with "@@", which may name a line that comes before
the edit (a class, function or section header) to say where to look. Then come the lines of the change:

" " + text   a line that stays as it is (context)
"-" + text   a line to remove
"+" + text   a line to add

How much context to give:
- Show three unchanged lines above and three below each edit. When two edits are close together, do not
  repeat the lines between them; the second change continues where the first ended.
- If three lines are not enough to tell the place apart from similar code, name the enclosing block
  with "@@ <header line>". When even that is ambiguous, give several "@@" lines in a row, from the
  outermost block inwards:

@@ class Repository
@@     def save(self):
         self.validate()
-        self.db.write(self)
+        self.db.write(self, flush=True)
         return self

- If the change is at the end of the file, add "*** End of File" after its last line.

The format in full:

Patch      := "*** Begin Patch" NEWLINE { Section } "*** End Patch" NEWLINE
Section    := AddFile | DeleteFile | UpdateFile
AddFile    := "*** Add File: " path NEWLINE { "+" line NEWLINE }
DeleteFile := "*** Delete File: " path NEWLINE
UpdateFile := "*** Update File: " path NEWLINE [ "*** Move to: " path NEWLINE ] { Change }
Change     := "@@" [ " " header ] NEWLINE { ( " " | "-" | "+" ) line NEWLINE } [ "*** End of File" NEWLINE ]

A patch may combine several files:

*** Begin Patch
*** Add File: docs/notes.md
+# Notes
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    run(debug=True)
+    run(debug=False)
*** Delete File: src/legacy.py
*** End Patch

Remember:
- Every section needs its header; there is no implicit file.
- New files need a "+" in front of every line, blank lines included.
- Use paths relative to the working directory, never absolute ones.

Run it as a shell command, for example:
shell {"command": ["apply_patch", "*** Begin Patch\\n*** Add File: hello.txt\\n+Hello, world!\\n*** End Patch\\n"]}
`;
