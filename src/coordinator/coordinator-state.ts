/**
 * What the coordinator holds while it runs: per session, its own participant
 * and notice board and each participant it answers for; per participant, the
 * turn under way. The coordinator (coordinator.ts) keeps these; a turn
 * (participant-turn.ts) reads them.
 */

import type { z } from 'zod';
import type { CoordinatorConfigSchema } from '../config/schema.js';
import type { RunnableAgent } from './adapter-run.js';
import type { CoordinatedParticipant } from './hub-access.js';
import type { NoticeBoard } from './notices.js';

/** The `coordinator` section of the config. */
export type CoordinatorConfig = z.output<typeof CoordinatorConfigSchema>;

/** A participant the coordinator answers for, in one session. */
export interface AgentState extends RunnableAgent {
  /** The turn loop in progress, if any (one per participant: runs never overlap). */
  draining?: Promise<void>;
  /** Woken while a turn was under way: look again when it ends. */
  again: boolean;
}

/** One session the coordinator watches. */
export interface SessionState {
  name: string;
  coordinator: CoordinatedParticipant;
  /** The coordinator's participant id: its own notices never ask anyone to answer. */
  coordinatorId: string;
  board: NoticeBoard;
  agents: AgentState[];
  stopWatching: () => void;
  /** The coordinator is present (listening) in the session while it runs. */
  leave: () => Promise<void>;
}
