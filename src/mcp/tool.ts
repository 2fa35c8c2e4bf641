import type { z } from 'zod';
import type { Action } from '../hub/index.js';
import { TO_ALL, type ParleyEvent } from '../schema/event.js';
import type { ToolContext, ToolDef } from './tool-types.js';

/** Defines a tool with its argument types inferred from the schema. */
export function tool<S extends z.ZodObject>(definition: {
  name: string;
  description: string;
  input: S;
  action: Action;
  readOnly?: boolean;
  run(ctx: ToolContext, args: z.output<S>): Promise<unknown>;
}): ToolDef {
  return definition as unknown as ToolDef;
}

/** An event as a model needs it: who said what, when, and how to refer to it. */
export function compactEvent(event: ParleyEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { id: event.id, seq: event.seq, ts: event.ts, author: event.author };
  if (event.type !== 'message') out.type = event.type;
  if (typeof event.content === 'string') out.text = event.content;
  else out.content = event.content;
  if (event.to && event.to !== TO_ALL) out.to = event.to;
  if (event.meta?.reply_to) out.reply_to = event.meta.reply_to;
  if (event.meta?.tags?.length) out.tags = event.meta.tags;
  if (event.meta?.link) out.link = event.meta.link;
  return out;
}
