// Runs one turn of `deputy app-server`, approving commands that only read and edits in the
// workspace, declining anything else, and prints the turn's diff. Usage: node automation.mjs PROMPT
// (DEPUTY_SERVER='["node","/path/main.js","--listen","stdio://"]' runs another server command).
import { connect } from '@deputy/client';

const [command, ...args] = JSON.parse(process.env.DEPUTY_SERVER ?? '["deputy","app-server"]');
const isRead = (actions) => actions?.length > 0 && actions.every((a) => ['read', 'listFiles', 'search'].includes(a.type));
const client = await connect({
  spawn: { command, args, stderr: 'ignore' },
  handlers: {
    'item/commandExecution/requestApproval': ({ commandActions }) => ({ decision: isRead(commandActions) ? 'accept' : 'decline' }),
    'item/fileChange/requestApproval': () => ({ decision: 'accept' }),
  },
});
const { thread } = await client.request('thread/start', { approvalPolicy: 'untrusted' });
const events = client.notifications({ threadId: thread.id });
await client.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: process.argv[2] ?? 'hello' }] });
let diff = '';
for await (const event of events) {
  if (event.method === 'turn/diff/updated') diff = event.params.diff;
  if (event.method === 'item/completed' && event.params.item.type === 'commandExecution') console.log(`$ ${event.params.item.command} -> ${event.params.item.status}`);
  if (event.method === 'turn/completed') break;
}
console.log(diff || '(no changes)');
await client.close();
