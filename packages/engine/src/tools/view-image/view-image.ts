/**
 * `view_image`: the model asks to look at a local image file. The file is read, checked to be an
 * image, and attached to the next model request as an `input_image` data URL.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { z } from 'zod';
import { defineFunctionTool } from '../define-tool.js';
import { ToolError } from '../types.js';

/** The largest image attached (bytes). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const MIME_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** The view_image tool. */
export const viewImageTool = defineFunctionTool({
  name: 'view_image',
  description: 'Attaches a local image file (PNG, JPEG, GIF or WebP) to the conversation so you can look at it. Give its path.',
  parameters: z.object({ path: z.string().describe('Path of the image file, absolute or relative to the working directory') }).strict(),
  async handle(args, ctx) {
    const path = resolve(ctx.cwd, args.path);
    const mime = MIME_BY_EXTENSION[extname(path).toLowerCase()];
    if (!mime) throw new ToolError(`unable to attach ${path}: not a PNG, JPEG, GIF or WebP file`);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new ToolError(`unable to locate image at \`${path}\``);
    if (info.size > MAX_IMAGE_BYTES) throw new ToolError(`unable to attach ${path}: larger than ${MAX_IMAGE_BYTES} bytes`);
    const data = await readFile(path, { signal: ctx.signal });
    ctx.emit({ type: 'item.started', item: { type: 'imageView', id: ctx.callId, path }, atMs: Date.now() });
    ctx.emit({ type: 'item.completed', item: { type: 'imageView', id: ctx.callId, path }, atMs: Date.now() });
    return { output: 'attached local image path', success: true, images: [`data:${mime};base64,${data.toString('base64')}`] };
  },
});
