import { ParleyError } from '../errors/parley-error.js';

/**
 * A call that forces a chat tool for a participant without chat (an excluded
 * kind, chat off): the tool is not there for it, so the call could only fail
 * at the provider or come back without the call it demands. Refused before
 * it is sent, naming the option.
 */
export function forcedChatTool(field: string, toolName: string, handle: string): ParleyError {
  return new ParleyError(
    'INVALID_INPUT',
    `Invalid ${field}: it forces ${toolName}, but @${handle.replace(/^@/, '')} has no chat on this hub (chat is off, or its kind is in mcp.excludedKinds); let the model choose, or force another tool.`,
    { field },
  );
}
