/**
 * Parley's tools, as MCP and the agent loop both offer them: each room's
 * tools (names, descriptions written for a model, zod input schemas, the
 * permission action, and the handler that calls the participant API), the
 * registry that groups them into rooms, the rooms one connection has loaded,
 * and which rooms a participant gets. The MCP server (src/mcp) and the agent
 * loop (src/agent) import the tools from here and from nowhere else in
 * src/tools. Nothing here speaks a protocol.
 */

export type { ToolDef, ToolContext, ToolSettings, RoomDef, Room, RoomCatalog, ToolRooms, ToolListing } from './tool-types.js';
export { toolSettingsOf } from './tool-settings.js';

// The rooms, as defined.
export { globalRoom } from './rooms/global.js';
export { chatRoom, sideRoom } from './rooms/chat.js';
export { steerRoom } from './rooms/steer.js';
export { meetingRoom } from './rooms/meeting.js';
export { requestsRoom } from './rooms/requests.js';
export { presenceRoom } from './rooms/presence.js';
export { compatRoom } from './rooms/compat.js';

// Rooms held and loaded.
export { RoomRegistry } from './room-registry.js';
export { ConnectionRooms } from './connection-rooms.js';
export { chatAllowed, registryFor, toolAllowed, statesFor, initialRooms } from './catalog.js';
