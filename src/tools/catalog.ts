/**
 * Which rooms a participant's connection has. With `chat.enabled=false` the
 * chat rooms (chat, steer, side, and the compat names) are not registered at all;
 * a participant whose kind or a role is in `mcp.excludedKinds` gets none of
 * them either (and the hub refuses its chat calls on every other surface).
 * Tools are listed only when the participant's access covers them, and a room
 * left without tools is not listed at all: `steer` is an admin's. Registries
 * are built once per combination and shared.
 */

import type { Config } from '../config/schema.js';
import { chatOpenFor, accessNeeded, type Action } from '../hub/index.js';
import { accessAtLeast, type Access } from '../schema/access.js';
import type { Participant } from '../schema/participant.js';
import { chatRoom, sideRoom } from './rooms/chat.js';
import { compatRoom } from './rooms/compat.js';
import { globalRoom } from './rooms/global.js';
import { meetingRoom } from './rooms/meeting.js';
import { presenceRoom } from './rooms/presence.js';
import { RoomRegistry } from './room-registry.js';
import type { RoomDef } from './tool-types.js';
import { requestsRoom } from './rooms/requests.js';
import { steerRoom } from './rooms/steer.js';

/** Every room, in the order `rooms_list` shows them. */
const ALL_ROOMS: readonly RoomDef[] = [globalRoom, chatRoom, steerRoom, sideRoom, meetingRoom, requestsRoom, presenceRoom, compatRoom];
const CHAT_ROOMS = new Set(['chat', 'steer', 'side', 'compat']);

const registries = new Map<string, RoomRegistry>();

export function chatAllowed(config: Config, participant: Participant): boolean {
  return chatOpenFor(config, participant.profile);
}

/** `access` null: a roster is in force and the participant is not in it. */
export function registryFor(config: Config, participant: Participant, chat = chatAllowed(config, participant), access: Access | null = 'admin'): RoomRegistry {
  const key = `${chat ? 'chat' : 'no-chat'}:${access ?? 'not-in-roster'}`;
  let registry = registries.get(key);
  if (!registry) {
    const rooms = ALL_ROOMS.filter((room) => chat || !CHAT_ROOMS.has(room.id))
      .map((room) => ({ ...room, tools: room.tools.filter((t) => toolAllowed(access, t.action)) }))
      .filter((room) => room.tools.length > 0);
    const kept = new Set(rooms.map((room) => room.id));
    registry = new RoomRegistry(rooms.map(({ parent, ...room }) => (parent !== undefined && kept.has(parent) ? { ...room, parent } : room)));
    registries.set(key, registry);
  }
  return registry;
}

/** Whether a caller of that access may use a tool of that action; outside the roster, only whoami and the rooms. */
export function toolAllowed(access: Access | null, action: Action): boolean {
  if (access === null) return action === 'whoami' || action === 'rooms';
  return accessAtLeast(access, accessNeeded(action));
}

/** The states a connection is in, which decide the availability of rooms that require one. */
export function statesFor(config: Config): Set<string> {
  const states = new Set<string>();
  if (config.mcp.compat) states.add('compat');
  return states;
}

/** The rooms a participant's connection starts with: its own setting, else the hub's, or an override from the client. */
export function initialRooms(config: Config, participant: Participant, registry: RoomRegistry, override?: string[] | 'all'): string[] {
  const chosen = override ?? config.mcp.participantRooms[participant.handle] ?? config.mcp.rooms;
  return chosen === 'all' ? [...registry.rooms()].map((room) => room.id) : chosen;
}
