/**
 * A thread's read state (Codex 0.171): where its unread part starts and the revision that guards
 * updates. A leaf module, so `thread.ts` (`thread/list`'s `readStates`) and `thread-0171.ts`
 * (`thread/readState/*`) can both use it.
 */
import { z } from 'zod';

/** Where a thread's unread part starts: explicitly from its start, or at a completed turn. */
export const ThreadUnreadPositionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('threadStart') }),
  z.object({ type: z.literal('turn'), turnId: z.string() }),
]);
export type ThreadUnreadPosition = z.infer<typeof ThreadUnreadPositionSchema>;

/** A thread's read state: `firstUnread` null means read; `revision` guards updates. */
export const ThreadReadStateSchema = z.object({
  firstUnread: ThreadUnreadPositionSchema.nullable(),
  revision: z.string(),
});
export type ThreadReadState = z.infer<typeof ThreadReadStateSchema>;
