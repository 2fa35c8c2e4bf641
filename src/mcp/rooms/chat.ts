/**
 * The chat room's former place: its definition lives in src/tools with every
 * other tool. This re-export keeps older imports building; new code imports
 * `chatRoom` from src/tools/index.ts.
 */

export { chatRoom } from '../../tools/index.js';
