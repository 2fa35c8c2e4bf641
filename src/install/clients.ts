import { claude } from './claude.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { CLIENT_NAMES, type ClientName, type ClientSpec } from './spec.js';

/** The agent CLIs `parley install` knows, by the name given on the command line. */
export const CLIENTS: Record<ClientName, ClientSpec> = { claude, codex, gemini, cursor };

export const isClientName = (name: string | undefined): name is ClientName => (CLIENT_NAMES as readonly string[]).includes(name ?? '');
