/**
 * Rooms: groups of tools loaded and unloaded together. The registry is keyed,
 * never filtered: a room by id and a tool by name are one map lookup each, and
 * a tool's JSON listing is computed once. Rooms may nest: a child names its
 * parent and loads with it when it says so (`loadWithParent`) or when asked
 * (`room_load` with `with_children`).
 */

import { z } from 'zod';
import type { Room, RoomCatalog, RoomDef, ToolDef, ToolListing } from './tool-types.js';

/** What every LLM API accepts as a tool name. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class RoomRegistry implements RoomCatalog {
  readonly #rooms = new Map<string, Room>();
  /** Tool name → the room that owns it (a room may also list tools owned elsewhere, as aliases). */
  readonly #owner = new Map<string, string>();
  readonly #tools = new Map<string, ToolDef>();
  readonly #listings = new Map<string, ToolListing>();

  constructor(definitions: RoomDef[]) {
    for (const def of definitions) {
      if (this.#rooms.has(def.id)) throw new Error(`room "${def.id}" is defined twice`);
      const tools = new Map<string, ToolDef>();
      for (const t of def.tools) {
        if (!TOOL_NAME.test(t.name)) throw new Error(`tool name "${t.name}" is not accepted by every LLM API`);
        const known = this.#tools.get(t.name);
        if (known && known !== t) throw new Error(`tool "${t.name}" is defined twice`);
        tools.set(t.name, t);
        if (!known) {
          this.#tools.set(t.name, t);
          this.#owner.set(t.name, def.id);
          this.#listings.set(t.name, listingOf(t));
        }
      }
      this.#rooms.set(def.id, { ...def, tools, children: [], requiredStates: def.requiredStates ?? [] });
    }
    for (const room of this.#rooms.values()) {
      if (room.parent === undefined) continue;
      const parent = this.#rooms.get(room.parent);
      if (!parent) throw new Error(`room "${room.id}" names an unknown parent "${room.parent}"`);
      parent.children.push(room.id);
    }
  }

  room(id: string): Room | undefined {
    return this.#rooms.get(id);
  }

  rooms(): IterableIterator<Room> {
    return this.#rooms.values();
  }

  tool(name: string): ToolDef | undefined {
    return this.#tools.get(name);
  }

  /** The room a tool belongs to (its owner). */
  roomOf(toolName: string): string | undefined {
    return this.#owner.get(toolName);
  }

  listing(toolName: string): ToolListing | undefined {
    return this.#listings.get(toolName);
  }

  /** The room and its descendants, parent first. */
  withDescendants(id: string): string[] {
    const out: string[] = [];
    const visit = (roomId: string): void => {
      out.push(roomId);
      for (const child of this.#rooms.get(roomId)?.children ?? []) visit(child);
    };
    visit(id);
    return out;
  }

  /**
   * Rooms ranked for a free-text need: each word of the need that matches a
   * keyword (or starts one, or is started by one) counts 3, one found in the
   * room's name, description or tool names counts 1. Rooms scoring 0 are left out.
   */
  find(need: string): Array<{ room: Room; score: number }> {
    const words = need.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const ranked: Array<{ room: Room; score: number }> = [];
    for (const room of this.#rooms.values()) {
      const text = `${room.name} ${room.description} ${[...room.tools.keys()].join(' ')}`.toLowerCase();
      let score = 0;
      for (const word of new Set(words)) {
        if (word.length < 2) continue;
        if (room.keywords.some((k) => k === word || (word.length >= 3 && (k.startsWith(word) || word.startsWith(k))))) score += 3;
        else if (word.length >= 3 && text.includes(word)) score += 1;
      }
      if (score > 0) ranked.push({ room, score });
    }
    return ranked.sort((a, b) => b.score - a.score || a.room.id.localeCompare(b.room.id));
  }
}

function listingOf(t: ToolDef): ToolListing {
  const schema = z.toJSONSchema(t.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  // The dialect marker costs tokens on every listing and every client assumes it.
  delete schema.$schema;
  return { name: t.name, description: t.description, inputSchema: schema, ...(t.readOnly ? { annotations: { readOnlyHint: true } } : {}) };
}
