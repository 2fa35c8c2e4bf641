/**
 * Parley's hub tools for an AI SDK model: the same tool definitions the MCP
 * server offers (same names, descriptions and input schemas), each run over the
 * participant's REST link. Chat (post, DM, read, history, search, threads,
 * subscriptions), requests (send, respond, open) and who. Not the inbox,
 * wait or presence tools: the agent loop does those itself. A participant
 * without chat gets no chat tools.
 */

import type { ToolSet } from 'ai';
import { loadConfig } from '../config/load.js';
import { resolveHome } from '../config/home.js';
import { ConnectionRooms, RoomRegistry, chatRoom, globalRoom, requestsRoom, toolSettingsOf, type ToolDef, type ToolSettings } from '../tools/index.js';
import { linkToHub, type HubLink } from '../middleware/hub-link.js';
import { parleyOptions, type ParleyOptions } from '../middleware/options.js';

const WHO = globalRoom.tools.filter((t) => t.name === 'who');

export const PARLEY_CHAT_TOOL_NAMES: readonly string[] = chatRoom.tools.map((t) => t.name);
export const PARLEY_TOOL_NAMES: readonly string[] = [...PARLEY_CHAT_TOOL_NAMES, ...requestsRoom.tools.map((t) => t.name), ...WHO.map((t) => t.name)];

/** The tool set for a link (`settings` from the home's config, as `parley mcp` reads it). */
export function hubToolSet(link: HubLink, settings: ToolSettings): ToolSet {
  const defs: ToolDef[] = [...(link.chat ? chatRoom.tools : []), ...requestsRoom.tools, ...WHO];
  // The tools take a ToolContext; these never load rooms, but the context has them (as an MCP connection does).
  const rooms = new ConnectionRooms(new RoomRegistry([{ ...globalRoom, tools: WHO }]), new Set(), []);
  const tools: ToolSet = {};
  for (const def of defs) {
    tools[def.name] = {
      description: def.description,
      inputSchema: def.input,
      execute: (args: Record<string, unknown>, { abortSignal }: { abortSignal?: AbortSignal }) =>
        def.run({ api: link.api, rooms, settings, signal: abortSignal ?? new AbortController().signal }, args),
    };
  }
  return tools;
}

/** The tool settings of the home's config (its default channel, its wait limits). */
export function homeToolSettings(home: string | undefined): ToolSettings {
  return toolSettingsOf(loadConfig({ home: resolveHome(home) }));
}

/**
 * Parley's hub tools for your own AI SDK loop: from a link (see linkToHub),
 * or from the options that make one (`{ handle, url?, token?, home? }`).
 */
export async function parleyTools(from: HubLink | ParleyOptions): Promise<ToolSet> {
  if ('api' in from) return hubToolSet(from, homeToolSettings(undefined));
  const options = parleyOptions(from);
  return hubToolSet(await linkToHub(options), homeToolSettings(options.home));
}
