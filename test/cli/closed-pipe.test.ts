import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { BIN, childEnv } from '../helpers/serve.js';

const home = tempHomesRemovedAfterEach('parley-pipe-');

describe('closed pipe', () => {
  it('cli - a reader that closes the pipe after the first line ("parley doctor | head -1") ends the command quietly', async () => {
    const child = spawn(process.execPath, [BIN, 'doctor'], { env: childEnv(home()), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // As head does: read the first chunk, then close the reading end.
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toMatch(/home/);
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).not.toContain('Unhandled');
    expect(code).not.toBeNull();
  });
});
