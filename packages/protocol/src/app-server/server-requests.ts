/**
 * Server→client requests for approvals: `item/commandExecution/requestApproval` and
 * `item/fileChange/requestApproval`, with the responses the client sends back. The server sends
 * each request to every subscriber of the thread under that connection's own integer id; the
 * first answer wins and `serverRequest/resolved` follows. An unparsable answer counts as
 * `decline` — that fallback is the app's, these schemas stay strict.
 */
import { z } from 'zod';
import { CommandActionSchema } from './items.js';
import { AbsolutePathSchema, Int64Schema, UIntSchema } from './primitives.js';
import { FileSystemSandboxEntrySchema } from './policies.js';

/** A host rule the user may add instead of approving once. */
export const NetworkPolicyAmendmentSchema = z.object({
  /** Host name. */
  host: z.string(),
  /** Allow or deny it. */
  action: z.enum(['allow', 'deny']),
});
export type NetworkPolicyAmendment = z.infer<typeof NetworkPolicyAmendmentSchema>;

/**
 * Answer to a command approval. `acceptForSession` auto-approves identical commands in this
 * thread and is honoured even when not offered; `decline` lets the turn continue; `cancel` ends
 * the turn `interrupted`.
 */
export const CommandExecutionApprovalDecisionSchema = z.union([
  z.enum(['accept', 'acceptForSession', 'decline', 'cancel']),
  z.strictObject({
    /** Run it and store a prefix rule. */
    acceptWithExecpolicyAmendment: z.object({
      /** The command prefix to allow from now on. */
      execpolicy_amendment: z.array(z.string()),
    }),
  }),
  z.strictObject({
    /** Apply a network rule (network approvals). */
    applyNetworkPolicyAmendment: z.object({
      /** The rule. */
      network_policy_amendment: NetworkPolicyAmendmentSchema,
    }),
  }),
]);
export type CommandExecutionApprovalDecision = z.infer<typeof CommandExecutionApprovalDecisionSchema>;

/** Extra permissions a command asks for (experimental; removed for other clients). */
export const AdditionalPermissionProfileSchema = z.object({
  /** Filesystem additions. */
  fileSystem: z
    .object({
      /** Paths to read. */
      read: z.array(AbsolutePathSchema).nullish(),
      /** Paths to write. */
      write: z.array(AbsolutePathSchema).nullish(),
      /** Detailed entries. */
      entries: z.array(FileSystemSandboxEntrySchema).nullish(),
      /** Glob expansion depth. */
      globScanMaxDepth: UIntSchema.min(1).nullish(),
    })
    .nullish(),
  /** Network addition. */
  network: z.object({ /** Allow outbound network. */ enabled: z.boolean().nullish() }).nullish(),
});

/**
 * `item/commandExecution/requestApproval` params. Only the ids and `startedAtMs` are required,
 * but the TUI shows an empty `$` line without `command`, `cwd` and `reason`.
 */
export const CommandExecutionRequestApprovalParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The commandExecution item (`call_…`). */
  itemId: z.string(),
  /** When the item started, Unix ms. */
  startedAtMs: Int64Schema,
  /** Approval id when one item asks several times, if any. */
  approvalId: z.string().nullish(),
  /** Why approval is needed, e.g. `command failed; retry without sandbox?` (absent when none). */
  reason: z.string().nullish(),
  /** The full shell line. */
  command: z.string().nullish(),
  /** Absolute working directory. */
  cwd: AbsolutePathSchema.nullish(),
  /** What the command does, parsed for display. */
  commandActions: z.array(CommandActionSchema).nullish(),
  /** Prefix rule the user could allow, e.g. `["touch","/tmp/a"]` (absent when none). */
  proposedExecpolicyAmendment: z.array(z.string()).nullish(),
  /** Decisions to offer, e.g. `["accept", {"acceptWithExecpolicyAmendment":…}, "cancel"]`. */
  availableDecisions: z.array(CommandExecutionApprovalDecisionSchema).nullish(),
  /** For network approvals: the host and protocol. */
  networkApprovalContext: z
    .object({
      /** Host name. */
      host: z.string(),
      /** Protocol. */
      protocol: z.enum(['http', 'https', 'socks5Tcp', 'socks5Udp']),
    })
    .nullish(),
  /** For network approvals: rules the user could add. */
  proposedNetworkPolicyAmendments: z.array(NetworkPolicyAmendmentSchema).nullish(),
  /** Extra permissions requested (experimental). */
  additionalPermissions: AdditionalPermissionProfileSchema.nullish(),
});
export type CommandExecutionRequestApprovalParams = z.infer<typeof CommandExecutionRequestApprovalParamsSchema>;

/** `item/commandExecution/requestApproval` result, sent by the client. */
export const CommandExecutionRequestApprovalResultSchema = z.object({
  /** The decision. */
  decision: CommandExecutionApprovalDecisionSchema,
});
export type CommandExecutionRequestApprovalResult = z.infer<typeof CommandExecutionRequestApprovalResultSchema>;

/**
 * `item/fileChange/requestApproval` params. The diff is not included: it is in the preceding
 * `item/started` fileChange item.
 */
export const FileChangeRequestApprovalParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The fileChange item. */
  itemId: z.string(),
  /** When the item started, Unix ms. */
  startedAtMs: Int64Schema,
  /** Why approval is needed, null when no reason is given. */
  reason: z.string().nullable(),
  /** A directory outside the writable roots the patch needs, null when none. */
  grantRoot: z.string().nullable(),
});
export type FileChangeRequestApprovalParams = z.infer<typeof FileChangeRequestApprovalParamsSchema>;

/** Answer to a patch approval; `cancel` ends the turn `interrupted`. */
export const FileChangeApprovalDecisionSchema = z.enum(['accept', 'acceptForSession', 'decline', 'cancel']);
export type FileChangeApprovalDecision = z.infer<typeof FileChangeApprovalDecisionSchema>;

/** `item/fileChange/requestApproval` result, sent by the client. */
export const FileChangeRequestApprovalResultSchema = z.object({
  /** The decision. */
  decision: FileChangeApprovalDecisionSchema,
});
export type FileChangeRequestApprovalResult = z.infer<typeof FileChangeRequestApprovalResultSchema>;
