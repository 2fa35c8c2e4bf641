import type { Access } from '../schema/access.js';

/**
 * The permission table (roles): each action a participant can take,
 * with the least `access` it needs. Observers read; members also write;
 * operators also send requests; admins also steer threads and grant access.
 * Action names are the words the refusal shows ("request_send needs operator").
 */
export const PERMISSIONS = {
  // Reading: observer.
  whoami: 'observer',
  /** MCP only: listing, finding, loading and unloading rooms of tools. */
  rooms: 'observer',
  participants: 'observer',
  sessions: 'observer',
  threads: 'observer',
  thread_detail: 'observer',
  mark_read: 'observer',
  read_new: 'observer',
  history: 'observer',
  search: 'observer',
  export: 'observer',
  live: 'observer',
  inbox: 'observer',
  peek: 'observer',
  wait: 'observer',
  deliveries: 'observer',
  sent_deliveries: 'observer',
  open_requests: 'observer',
  who: 'observer',
  connect: 'observer',
  meetings: 'observer',
  meeting_hear: 'observer',
  meeting_who: 'observer',
  meeting_status: 'observer',
  meeting_ring: 'observer',
  // Writing: member.
  post: 'member',
  dm: 'member',
  thread_create: 'member',
  thread_rename: 'member',
  side_open: 'member',
  side_close: 'member',
  subscribe: 'member',
  unsubscribe: 'member',
  self_mute: 'member',
  ack: 'member',
  inject: 'member',
  agent_hook: 'member',
  request_respond: 'member',
  presence_set: 'member',
  meeting_join: 'member',
  meeting_say: 'member',
  meeting_leave: 'member',
  profile_update: 'member',
  // Asking: operator.
  request_send: 'operator',
  // Steering and granting: admin (mute, unmute, pause, resume, prod, invite, done, participation policy and ttl).
  steer: 'admin',
  access_set: 'admin',
  /** Pushing a new roster version (the roster's own signatures must be admins' too). */
  roster: 'admin',
} as const satisfies Record<string, Access>;

export type Action = keyof typeof PERMISSIONS;

/** The least access an action needs. */
export function accessNeeded(action: Action): Access {
  return PERMISSIONS[action];
}
