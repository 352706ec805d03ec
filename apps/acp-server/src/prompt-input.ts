/**
 * ACP prompt content → Deputy user input (docs/acp.md, "Prompts"): text as is, images as data
 * URLs, resource links as `[@name](uri)`, embedded text resources as a context block. Audio and
 * non-image blobs are refused with invalid params (audio is not advertised).
 */
import * as acp from '@agentclientprotocol/sdk';
import type { UserInput } from '@deputy/protocol';

/** The user input of a prompt; throws `-32602` for content Deputy cannot take. */
export function promptInput(blocks: acp.ContentBlock[]): UserInput[] {
  const input: UserInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        input.push({ type: 'text', text: block.text });
        break;
      case 'image':
        input.push({ type: 'image', url: `data:${block.mimeType};base64,${block.data}` });
        break;
      case 'resource_link':
        input.push({ type: 'text', text: `[@${block.name}](${block.uri})` });
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) {
          const name = resource.uri.split('/').pop() || resource.uri;
          input.push({ type: 'text', text: `[@${name}](${resource.uri})\n<context ref="${resource.uri}">\n${resource.text}\n</context>` });
        } else if (resource.mimeType?.startsWith('image/')) {
          input.push({ type: 'image', url: `data:${resource.mimeType};base64,${resource.blob}` });
        } else {
          throw acp.RequestError.invalidParams({ uri: resource.uri }, `embedded binary resource \`${resource.uri}\` is not an image; only text and image resources are accepted`);
        }
        break;
      }
      case 'audio':
        throw acp.RequestError.invalidParams({ type: 'audio' }, 'audio prompts are not supported (promptCapabilities.audio is false)');
    }
  }
  if (input.length === 0) throw acp.RequestError.invalidParams({ prompt: [] }, 'the prompt is empty');
  return input;
}
