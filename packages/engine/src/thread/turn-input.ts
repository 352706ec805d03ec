/**
 * What a turn adds to the history before the model answers: the context messages (when the
 * thread has none for the turn's settings yet) and the user's input, as a `userMessage` item for
 * users and a message for the model (local images attached as data URLs when readable).
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem, UserInput } from '@deputy/protocol';
import type { ResponseItem } from '../model/types.js';
import { initialContextItems } from './context.js';
import { contextKeyOf } from './settings.js';
import type { TurnScope } from './turn-scope.js';

/** The context messages for the turn's settings (permissions, instructions, AGENTS.md, environment). */
export function contextItems(scope: TurnScope): ResponseItem[] {
  const s = scope.turn.settings;
  return initialContextItems({
    cwd: s.cwd,
    sandbox: s.sandboxPolicy,
    approvalPolicy: s.approvalPolicy,
    developerInstructions: s.developerInstructions,
    projectDocMaxBytes: scope.deps.projectDocMaxBytes,
    skillsInstructions: scope.turn.extensions?.skillsInstructions ?? null,
  });
}

/** Sends the context messages when the history holds none yet for the turn's settings (cwd, policies, instructions). */
export function injectContext(scope: TurnScope): void {
  const key = contextKeyOf(scope.turn.settings);
  if (scope.contextKey === key) return;
  scope.recordContext(contextItems(scope), key);
}

/** Records user input as a userMessage item (with the client's id of the message, if any) and a model message. */
export function addUserInput(scope: TurnScope, input: UserInput[], clientId: string | null = null): void {
  const item: ThreadItem = { type: 'userMessage', id: uuidv4(), content: input.map(withTextElements), ...(clientId !== null ? { clientId } : {}) };
  const now = Date.now();
  scope.emit({ type: 'item.started', item, atMs: now });
  scope.emit({ type: 'item.completed', item, atMs: now });
  scope.record(userMessageItem(input));
}

/** The model message for user input. Local images are attached as data URLs when readable; skill parts add nothing here. */
export function userMessageItem(input: UserInput[]): ResponseItem {
  const content = input.flatMap((part): Extract<ResponseItem, { type: 'message' }>['content'] => {
    if (part.type === 'text') return [{ type: 'input_text', text: part.text }];
    if (part.type === 'image') return [{ type: 'input_image', image_url: part.url }];
    // A named skill reaches the model as its own `<skill>` message (turn-extensions.ts).
    if (part.type === 'skill') return [];
    const url = localImageDataUrl(part.path);
    return url ? [{ type: 'input_image', image_url: url }] : [{ type: 'input_text', text: `<image path="${part.path}" unreadable>` }];
  });
  return { type: 'message', role: 'user', content };
}

function localImageDataUrl(path: string): string | null {
  const mime = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' }[extname(path).toLowerCase()];
  try {
    return mime ? `data:${mime};base64,${readFileSync(path).toString('base64')}` : null;
  } catch {
    return null;
  }
}

function withTextElements(part: UserInput): UserInput {
  return part.type === 'text' ? { ...part, text_elements: part.text_elements ?? [] } : part;
}
