import { ParleyError } from '../errors/parley-error.js';
import type { Room, ToolDef, ToolListing, ToolRooms } from './tool-types.js';
import type { RoomRegistry } from './room-registry.js';

/**
 * The rooms one connection (an MCP connection, or the agent loop's tool set)
 * has loaded. `tools/list` walks only the loaded rooms (and is cached until
 * the set changes); a call finds its tool with one lookup in the loaded-tool
 * map. Loading or unloading calls `onChange`, which the MCP server turns into
 * `notifications/tools/list_changed`.
 */
export class ConnectionRooms implements ToolRooms {
  readonly #loaded = new Set<string>();
  /** Tool name → tool, for the loaded rooms only. */
  #active = new Map<string, ToolDef>();
  #listing: ToolListing[] | undefined;

  #registry: RoomRegistry;

  constructor(
    registry: RoomRegistry,
    /** The states this connection is in; a room needing another state is listed but not loadable. */
    readonly states: ReadonlySet<string>,
    initial: Iterable<string>,
    private readonly onChange: () => void = () => undefined,
  ) {
    this.#registry = registry;
    for (const room of registry.rooms()) if (room.autoLoad) this.#add(room.id);
    for (const id of initial) {
      const room = registry.room(id);
      if (room && this.available(room)) for (const roomId of this.#withAutoChildren(id)) this.#add(roomId);
    }
    this.#rebuild();
  }

  /** The rooms and tools this connection's participant may use (they follow its access). */
  get registry(): RoomRegistry {
    return this.#registry;
  }

  /**
   * Changes the tools on offer, when the participant's access changed: rooms
   * stay loaded as chosen (a room the new access hides gives no tools, and
   * comes back with its access), and the client hears that the list changed.
   */
  useRegistry(registry: RoomRegistry): void {
    if (registry === this.#registry) return;
    this.#registry = registry;
    for (const room of registry.rooms()) if (room.autoLoad) this.#add(room.id);
    this.#changed();
  }

  isLoaded(id: string): boolean {
    return this.#loaded.has(id);
  }

  loaded(): string[] {
    return [...this.#loaded];
  }

  available(room: Room): boolean {
    return room.requiredStates.every((state) => this.states.has(state));
  }

  /** Loads a room (and the children that load with it, or all of them); returns what was newly loaded. */
  load(id: string, withChildren = false): { loaded: string[]; tools: string[] } {
    const room = this.#require(id);
    if (!this.available(room)) {
      throw new ParleyError(
        'FORBIDDEN',
        `Room "${id}" is not available to this connection: it needs ${room.requiredStates.map((s) => `"${s}"`).join(', ')} (see its room://${id} resource).`,
        { field: 'room' },
      );
    }
    const ids = withChildren ? this.registry.withDescendants(id) : this.#withAutoChildren(id);
    const added = ids.filter((roomId) => {
      const candidate = this.registry.room(roomId);
      return candidate !== undefined && this.available(candidate) && this.#add(roomId);
    });
    const before = new Set(this.#active.keys());
    if (added.length) this.#changed();
    return { loaded: added, tools: [...this.#active.keys()].filter((name) => !before.has(name)) };
  }

  /** Unloads a room (and its children when asked); the global room stays. */
  unload(id: string, withChildren = false): { unloaded: string[]; tools: string[] } {
    const room = this.#require(id);
    if (room.autoLoad) throw new ParleyError('INVALID_INPUT', `Room "${id}" is always loaded.`, { field: 'room' });
    const ids = withChildren ? this.registry.withDescendants(id) : [id];
    const removed = ids.filter((roomId) => this.#loaded.delete(roomId));
    const before = new Set(this.#active.keys());
    if (removed.length) this.#changed();
    return { unloaded: removed, tools: [...before].filter((name) => !this.#active.has(name)) };
  }

  /** The loaded tool of that name, or undefined. */
  tool(name: string): ToolDef | undefined {
    return this.#active.get(name);
  }

  listTools(): ToolListing[] {
    this.#listing ??= [...this.#active.keys()].map((name) => this.registry.listing(name)!);
    return this.#listing;
  }

  #withAutoChildren(id: string): string[] {
    const out = [id];
    for (const child of this.registry.room(id)?.children ?? []) {
      if (this.registry.room(child)?.loadWithParent) out.push(...this.#withAutoChildren(child));
    }
    return out;
  }

  #require(id: string): Room {
    const room = this.registry.room(id);
    if (!room) {
      const known = [...this.registry.rooms()].map((r) => r.id).join(', ');
      throw new ParleyError('NOT_FOUND', `No room "${id}". Rooms: ${known}. Use rooms_find to search by need.`, { field: 'room' });
    }
    return room;
  }

  #add(id: string): boolean {
    if (this.#loaded.has(id)) return false;
    this.#loaded.add(id);
    return true;
  }

  #changed(): void {
    this.#rebuild();
    this.onChange();
  }

  #rebuild(): void {
    const active = new Map<string, ToolDef>();
    for (const id of this.#loaded) for (const [name, t] of this.registry.room(id)?.tools ?? []) active.set(name, t);
    this.#active = active;
    this.#listing = undefined;
  }
}
