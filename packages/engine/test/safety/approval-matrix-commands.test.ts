/**
 * The approval matrix for commands, through real turns under a real workspace-write sandbox:
 * every policy × (safe command, unsafe command, sandbox denial, escalation request) × every
 * answer where an approval is asked. The table and the checks live in `matrix.ts`.
 */
import { describeMatrix } from './matrix.js';

describeMatrix(['safe command', 'unsafe command', 'sandbox denial', 'escalation request']);
