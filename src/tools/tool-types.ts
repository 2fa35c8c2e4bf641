/**
 * The shapes of Parley's tools and rooms, as the MCP server and the agent
 * loop both offer them. A tool is a name, a description written for a model,
 * a zod input schema (the source of its JSON Schema and of argument
 * validation), and a thin adapter over the participant API. Results are
 * compact JSON: ids, seqs and what is new, never an echo of the arguments.
 */

import type { z } from 'zod';
import type { ParticipantApi, Action } from '../hub/index.js';

/** The hub's settings that tools read (from its config: see toolSettingsOf). */
export interface ToolSettings {
  /** The channel chat tools use when no thread is named. */
  defaultChannel: string;
  /** `wait` never blocks longer than this (below clients' request timeouts). */
  maxWaitMs: number;
  /** The meeting the compat room's meeting tools (katra_say, …) speak in. */
  compatMeeting: string;
}

/** What a tool runs with: the caller's participant API, its connection's rooms, the settings. */
export interface ToolContext {
  /** Acts as the connection's participant: the author of everything a tool does. */
  api: ParticipantApi;
  rooms: ToolRooms;
  settings: ToolSettings;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
}

/** One tool: its name, the description a model reads, its input schema, and what it runs. */
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

/** A room as defined: a group of tools loaded and unloaded together (see room-registry.ts). */
export interface RoomDef {
  id: string;
  name: string;
  description: string;
  /** Words a free-text need is matched against (rooms_find). */
  keywords: string[];
  tools: ToolDef[];
  parent?: string;
  /** States the connection must be in for the room to be loadable (e.g. "compat"). */
  requiredStates?: string[];
  /** Always loaded and never unloaded (the global room). */
  autoLoad?: boolean;
  /** Loads whenever its parent loads. */
  loadWithParent?: boolean;
}

/** A room as the registry holds it: its tools by name, its children. */
export interface Room extends Omit<RoomDef, 'tools'> {
  tools: ReadonlyMap<string, ToolDef>;
  children: string[];
  requiredStates: string[];
}

/** A tool as `tools/list` shows it. */
export interface ToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

/** The rooms a connection may use, as a tool reads them (RoomRegistry is the implementation). */
export interface RoomCatalog {
  rooms(): Iterable<Room>;
  find(need: string): Array<{ room: Room; score: number }>;
}

/**
 * What a tool may see and do of its connection's rooms (ConnectionRooms is
 * the implementation). An interface here, so tools, rooms and the connection
 * share these types without importing one another.
 */
export interface ToolRooms {
  readonly registry: RoomCatalog;
  isLoaded(id: string): boolean;
  loaded(): string[];
  available(room: Room): boolean;
  load(id: string, withChildren?: boolean): { loaded: string[]; tools: string[] };
  unload(id: string, withChildren?: boolean): { unloaded: string[]; tools: string[] };
}
