/**
 * One MCP connection's server: the participant's tools in rooms, the rooms as
 * `room://` resources, and the instructions. Built on the SDK's low-level
 * Server so that `tools/list` walks only the loaded rooms and a call finds its
 * tool in one lookup. The author of everything is the connection's
 * participant: the API it is given acts as them, and no tool takes an author.
 * A result is JSON with the line separators and hidden characters that JSON
 * leaves raw escaped too, so that no peer's text in it shows as a new line.
 */

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import { fromZodError, toParleyError } from '../errors/parley-error.js';
import type { ParticipantApi } from '../hub/index.js';
import type { Participant } from '../schema/participant.js';
import type { Access } from '../schema/access.js';
import type { Logger } from '../util/logger.js';
import { jsonForModel } from '../util/peer-text.js';
import { VERSION } from '../version.js';
import { ConnectionRooms, chatAllowed, initialRooms, registryFor, statesFor, toolSettingsOf, type Room, type ToolContext } from '../tools/index.js';
import { instructionsFor } from './instructions.js';

export interface McpConnectionOptions {
  api: ParticipantApi;
  config: Config;
  participant: Participant;
  session: string;
  /** Handles of the session's humans, named in the instructions. */
  humans: string[];
  /** The rooms to start with instead of the configured ones. */
  rooms?: string[] | 'all';
  /** Whether the participant has chat, as a remote hub says (its toggle and excluded kinds); default: from `config`. */
  chat?: boolean;
  /**
   * The participant's access now (null: a roster is in force and it is not a
   * member); its tools follow it. Default admin: every tool is listed, and the
   * hub still refuses what the participant may not do.
   */
  access?: () => Access | null | undefined;
  /** Hears changes of the participant's access (the tool list is rebuilt and list_changed sent); returns the unsubscribe. */
  onAccessChange?: (listener: () => void) => () => void;
  logger?: Logger;
}

/** JSON-RPC "resource not found" (MCP). */
const RESOURCE_NOT_FOUND = -32002;

export function createMcpServer(options: McpConnectionOptions): { server: Server; rooms: ConnectionRooms } {
  const { api, config, participant, logger } = options;
  const chat = options.chat ?? chatAllowed(config, participant);
  const accessNow = (): Access | null => (options.access ? (options.access() ?? null) : 'admin');
  const access = accessNow();
  const registry = registryFor(config, participant, chat, access);
  // Every tool, whatever the access: a call to one the caller's access hides is still made, so the hub answers it with its refusal.
  const everyTool = registryFor(config, participant, chat, 'admin');
  const server = new Server(
    { name: 'parley', version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: {} },
      instructions: instructionsFor({ participant, session: options.session, humans: options.humans, chat, ...(options.access ? { access } : {}) }),
    },
  );
  const rooms = new ConnectionRooms(registry, statesFor(config), initialRooms(config, participant, registry, options.rooms), () => {
    server.sendToolListChanged().catch(() => {
      // Before the client connected or after it went, there is no one to tell; the next tools/list is right anyway.
    });
  });
  const settings = toolSettingsOf(config);
  if (options.onAccessChange) {
    const unlisten = options.onAccessChange(() => rooms.useRegistry(registryFor(config, participant, chat, accessNow())));
    server.onclose = unlisten;
  }

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: rooms.listTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    // A tool the access hides (in a room this connection could otherwise load) is still called: the hub answers FORBIDDEN_ROLE.
    const hiddenRoom = rooms.registry.tool(name) ? undefined : everyTool.room(everyTool.roomOf(name) ?? '');
    const hidden = hiddenRoom && rooms.available(hiddenRoom) ? everyTool.tool(name) : undefined;
    const found = rooms.tool(name) ?? hidden;
    if (!found) {
      const owner = rooms.registry.roomOf(name);
      return failure(
        owner
          ? `NOT_LOADED: tool "${name}" is in room "${owner}", which is not loaded. Call room_load with {"room":"${owner}"} first.`
          : `NOT_FOUND: there is no tool "${name}". Call rooms_find with what you need.`,
      );
    }
    const parsed = found.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const error = fromZodError(parsed.error);
      return failure(`${error.code}: ${error.message}`);
    }
    const context: ToolContext = { api, rooms, settings, signal: extra.signal };
    try {
      const value = await found.run(context, parsed.data as Record<string, unknown>);
      return { content: [{ type: 'text', text: jsonForModel(value ?? {}) }] };
    } catch (error) {
      const parleyError = toParleyError(error);
      if (parleyError.code === 'INTERNAL') logger?.error('MCP tool failed', { tool: name, error: parleyError.cause ?? parleyError });
      return failure(`${parleyError.code}: ${parleyError.messageFor('mcp')}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...rooms.registry.rooms()].map((room) => ({
      uri: `room://${room.id}`,
      name: room.id,
      title: room.name,
      description: `${room.description} ${availabilityText(room, rooms)}`,
      mimeType: 'application/json',
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const match = /^room:\/\/([^/?#]+)$/.exec(request.params.uri);
    const room = match?.[1] ? rooms.registry.room(match[1]) : undefined;
    if (!room) throw new McpError(RESOURCE_NOT_FOUND, `No resource ${request.params.uri}; rooms are listed by resources/list.`);
    const body = {
      id: room.id,
      name: room.name,
      description: room.description,
      keywords: room.keywords,
      tools: [...room.tools.keys()],
      ...(room.parent ? { parent: room.parent } : {}),
      children: room.children,
      requiredStates: room.requiredStates,
      available: rooms.available(room),
      loaded: rooms.isLoaded(room.id),
    };
    return { contents: [{ uri: request.params.uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
  });

  return { server, rooms };
}

function availabilityText(room: Room, rooms: ConnectionRooms): string {
  if (rooms.isLoaded(room.id)) return `Loaded (${room.tools.size} tools).`;
  if (!rooms.available(room)) return `Not available: needs ${room.requiredStates.join(', ')}.`;
  return `${room.tools.size} tools; load with room_load.`;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
