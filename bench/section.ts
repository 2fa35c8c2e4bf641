import type { SectionName } from './figures.js';

/** What one section of the benchmark is given: whether the run is quick, and where to say what it does. */
export interface SectionContext {
  quick: boolean;
  /** The peer section's memory watch, in seconds, when set on the command line. */
  peerRssSeconds?: number | undefined;
  log: (message: string) => void;
}

/** The figures a section measured (by id of the figures table), a note on some, and its raw results for the JSON. */
export interface SectionResult {
  values: Record<string, number>;
  notes?: Record<string, string>;
  details: unknown;
}

export interface Section {
  name: SectionName;
  run: (ctx: SectionContext) => Promise<SectionResult>;
}
