import type { z } from 'zod';
import type { ParticipantApi } from '../hub/participant-api.js';
import type { Action } from '../hub/permissions.js';
import { TO_ALL, type ParleyEvent } from '../schema/event.js';
import type { ConnectionRooms } from './rooms/connection-rooms.js';

/**
 * One MCP tool: a name, a description written for a model, a zod input
 * schema (the source of its JSON Schema and of argument validation), and a
 * thin adapter over the participant API. Results are compact JSON: ids, seqs
 * and what is new, never an echo of the arguments.
 */
export interface McpSettings {
  /** The channel chat tools use when no thread is named. */
  defaultChannel: string;
  /** `wait` never blocks longer than this (below clients' request timeouts). */
  maxWaitMs: number;
  /** The meeting Katra's tool names (compat room) speak in. */
  compatMeeting: string;
}

export interface ToolContext {
  api: ParticipantApi;
  rooms: ConnectionRooms;
  settings: McpSettings;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
}

export interface ToolDef {
  name: string;
  description: string;
  input: z.ZodObject;
  /** What the tool does, in the permission table's terms: listed only to callers whose access covers it. */
  action: Action;
  /** MCP annotations: a read-only tool changes nothing. */
  readOnly?: boolean;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

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
