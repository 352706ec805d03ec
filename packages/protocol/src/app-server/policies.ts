/**
 * Policy values as the app-server wire spells them: the approval policy (with its experimental
 * `granular` form), the approvals reviewer, the turn-level `SandboxPolicy` with camelCase tags
 * (`dangerFullAccess`, `readOnly`, `workspaceWrite`, `externalSandbox`), personality and the
 * permission profiles of thread responses. String values shared with the MCP server
 * (`on-request`, `read-only`, reasoning effort) come from `core/policies.ts`; converting these
 * shapes to engine types is the app's job, not this module's.
 */
import { z } from 'zod';
import { ApprovalPolicySchema, ReasoningEffortSchema } from '../core/policies.js';
import { AbsolutePathSchema, UIntSchema } from './primitives.js';

/**
 * The experimental fine-grained approval policy: which kinds of prompt may reach the user.
 * Descriptor when gated: `askForApproval.granular`.
 */
export const GranularApprovalSchema = z.object({
  /** Allow shell-command approval prompts (sandbox escalations). */
  sandbox_approval: z.boolean(),
  /** Allow prompts triggered by execpolicy `prompt` rules. */
  rules: z.boolean(),
  /** Allow MCP elicitation prompts. */
  mcp_elicitations: z.boolean(),
  /** Allow skill approval prompts (default false). */
  skill_approval: z.boolean().optional(),
  /** Allow `request_permissions` prompts (default false). */
  request_permissions: z.boolean().optional(),
});
export type GranularApproval = z.infer<typeof GranularApprovalSchema>;

/**
 * `AskForApproval`: one of the kebab-case strings (`untrusted`, `on-failure`, `on-request`,
 * `never`; camelCase is rejected) or `{granular: …}` (experimental). Output uses the same form.
 */
export const AskForApprovalSchema = z.union([
  ApprovalPolicySchema,
  z.strictObject({
    /** The fine-grained policy. */
    granular: GranularApprovalSchema,
  }),
]);
export type AskForApproval = z.infer<typeof AskForApprovalSchema>;

/**
 * Who reviews approval requests. `auto_review` is accepted on input and echoed back as
 * `guardian_subagent` by the reference.
 */
export const ApprovalsReviewerSchema = z.enum(['user', 'auto_review', 'guardian_subagent']);
export type ApprovalsReviewer = z.infer<typeof ApprovalsReviewerSchema>;

/** The assistant's personality preset. */
export const PersonalitySchema = z.enum(['none', 'friendly', 'pragmatic']);
export type Personality = z.infer<typeof PersonalitySchema>;

/** Network access of an externally sandboxed process. */
export const NetworkAccessSchema = z.enum(['restricted', 'enabled']);
export type NetworkAccess = z.infer<typeof NetworkAccessSchema>;

/**
 * The turn-level sandbox policy (`turn/start.sandboxPolicy`, `command/exec.sandboxPolicy`, and the
 * `sandbox` of every thread-session result). Always the tagged-object form; a bare string is
 * rejected. On output the reference sends every optional field with its resolved value.
 */
export const SandboxPolicySchema = z.discriminatedUnion('type', [
  z.object({
    /** No sandbox at all. */
    type: z.literal('dangerFullAccess'),
  }),
  z.object({
    /** Read-only filesystem. */
    type: z.literal('readOnly'),
    /** Whether outbound network is allowed (default false). */
    networkAccess: z.boolean().optional(),
  }),
  z.object({
    /** The process is already confined by something outside Codex. */
    type: z.literal('externalSandbox'),
    /** Network access of the outer sandbox (default `restricted`). */
    networkAccess: NetworkAccessSchema.optional(),
  }),
  z.object({
    /** Writes allowed under the cwd, the writable roots and the temp dirs. */
    type: z.literal('workspaceWrite'),
    /** Extra absolute directories that may be written (default `[]`). */
    writableRoots: z.array(AbsolutePathSchema).optional(),
    /** Whether outbound network is allowed (default false). */
    networkAccess: z.boolean().optional(),
    /** Do not make `$TMPDIR` writable (default false). */
    excludeTmpdirEnvVar: z.boolean().optional(),
    /** Do not make `/tmp` writable (default false). */
    excludeSlashTmp: z.boolean().optional(),
  }),
]);
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>;

/** A path the permission system knows by role rather than by name. */
export const FileSystemSpecialPathSchema = z.discriminatedUnion('kind', [
  z.object({ /** The filesystem root. */ kind: z.literal('root') }),
  z.object({ /** The minimal set of system paths a process needs. */ kind: z.literal('minimal') }),
  z.object({
    /** The project roots (the cwd and writable roots). */
    kind: z.literal('project_roots'),
    /** A path below each project root, e.g. `.git`; null for the roots themselves. */
    subpath: z.string().nullish(),
  }),
  z.object({ /** `$TMPDIR`. */ kind: z.literal('tmpdir') }),
  z.object({ /** `/tmp`. */ kind: z.literal('slash_tmp') }),
  z.object({
    /** A special path this version does not know, kept verbatim. */
    kind: z.literal('unknown'),
    /** The raw path text. */
    path: z.string(),
    /** A path below it, if any. */
    subpath: z.string().nullish(),
  }),
]);
export type FileSystemSpecialPath = z.infer<typeof FileSystemSpecialPathSchema>;

/** Where a filesystem permission entry applies. */
export const FileSystemPathSchema = z.discriminatedUnion('type', [
  z.object({
    /** A concrete absolute path. */
    type: z.literal('path'),
    /** The path. */
    path: AbsolutePathSchema,
  }),
  z.object({
    /** A glob pattern. */
    type: z.literal('glob_pattern'),
    /** The pattern. */
    pattern: z.string(),
  }),
  z.object({
    /** A special path. */
    type: z.literal('special'),
    /** Which special path. */
    value: FileSystemSpecialPathSchema,
  }),
]);
export type FileSystemPath = z.infer<typeof FileSystemPathSchema>;

/** Access granted on a path. */
export const FileSystemAccessModeSchema = z.enum(['read', 'write', 'none']);
export type FileSystemAccessMode = z.infer<typeof FileSystemAccessModeSchema>;

/** One entry of a restricted filesystem policy. */
export const FileSystemSandboxEntrySchema = z.object({
  /** The path the entry covers. */
  path: FileSystemPathSchema,
  /** The access granted there. */
  access: FileSystemAccessModeSchema,
});
export type FileSystemSandboxEntry = z.infer<typeof FileSystemSandboxEntrySchema>;

/** Network part of a permission profile. */
export const PermissionProfileNetworkSchema = z.object({
  /** Whether outbound network is allowed. */
  enabled: z.boolean(),
});

/**
 * The effective permissions of a thread, reported in thread-session results
 * (`permissionProfile`). Marked experimental in the schema, but the reference sends it to every
 * client: `{type:"disabled"}` for full access, `managed` with filesystem entries otherwise.
 */
export const PermissionProfileSchema = z.discriminatedUnion('type', [
  z.object({
    /** Codex manages filesystem and network permissions. */
    type: z.literal('managed'),
    /** Network permission. */
    network: PermissionProfileNetworkSchema,
    /** Filesystem permission. */
    fileSystem: z.discriminatedUnion('type', [
      z.object({
        /** Only the listed entries are accessible. */
        type: z.literal('restricted'),
        /** The entries, in precedence order. */
        entries: z.array(FileSystemSandboxEntrySchema),
        /** How deep glob entries are expanded (absent when unset). */
        globScanMaxDepth: UIntSchema.min(1).nullish(),
      }),
      z.object({ /** Everything is accessible. */ type: z.literal('unrestricted') }),
    ]),
  }),
  z.object({ /** No restrictions (danger-full-access). */ type: z.literal('disabled') }),
  z.object({
    /** Confined by an external sandbox. */
    type: z.literal('external'),
    /** Network permission. */
    network: PermissionProfileNetworkSchema,
  }),
]);
export type PermissionProfile = z.infer<typeof PermissionProfileSchema>;

/** A change applied on top of a named permission profile. */
export const PermissionProfileModificationSchema = z.object({
  /** Add one more writable root. */
  type: z.literal('additionalWritableRoot'),
  /** The absolute directory. */
  path: AbsolutePathSchema,
});
export type PermissionProfileModification = z.infer<typeof PermissionProfileModificationSchema>;

/** The named permission profile in force (`activePermissionProfile`), or null when none. */
export const ActivePermissionProfileSchema = z.object({
  /** Profile id. */
  id: z.string(),
  /** The profile this one extends, if any. */
  extends: z.string().nullish(),
  /** Modifications applied on top (default `[]`). */
  modifications: z.array(PermissionProfileModificationSchema).optional(),
});
export type ActivePermissionProfile = z.infer<typeof ActivePermissionProfileSchema>;

/**
 * Selects a named permission profile (`permissions` of thread/start, resume, fork and
 * turn/start). Experimental.
 */
export const PermissionProfileSelectionSchema = z.union([
  /** Current clients (0.169+): the profile id alone, e.g. `:workspace`. */
  z.string(),
  /** 0.130 clients: `{type: "profile", id, modifications?}`. */
  z.object({
    /** The only selection kind: a named profile. */
    type: z.literal('profile'),
    /** Profile id. */
    id: z.string(),
    /** Modifications to apply on top. */
    modifications: z.array(PermissionProfileModificationSchema).nullish(),
  }),
]);
export type PermissionProfileSelection = z.infer<typeof PermissionProfileSelectionSchema>;

/** Efforts current clients may send that run as `xhigh`, the strongest effort Deputy's engine knows. */
const XHIGH_ALIASES: ReadonlySet<string> = new Set(['max', 'ultra']);

/**
 * A reasoning effort as a client sends it: 0.130 sent one of `none` … `xhigh`; current clients may
 * send any non-empty string (the 0.171 catalogue uses `max` and `ultra`). Parses to the engine's
 * efforts: known values pass, `max` and `ultra` become `xhigh`, anything else is refused with the
 * list of what is understood.
 */
export const InputReasoningEffortSchema = z
  .string()
  .min(1)
  .transform((value, ctx) => {
    const effort = XHIGH_ALIASES.has(value) ? 'xhigh' : value;
    const parsed = ReasoningEffortSchema.safeParse(effort);
    if (parsed.success) return parsed.data;
    ctx.addIssue({
      code: 'custom',
      message: `reasoning effort \`${value}\` is not supported by this server; use one of ${ReasoningEffortSchema.options.join(', ')} (max and ultra run as xhigh)`,
    });
    return z.NEVER;
  });
