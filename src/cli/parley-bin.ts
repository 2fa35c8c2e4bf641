import { fileURLToPath } from 'node:url';

/** The absolute path of this checkout's `bin/parley` (this file runs from dist/src/cli/). */
export const PARLEY_BIN = fileURLToPath(new URL('../../../bin/parley', import.meta.url));
