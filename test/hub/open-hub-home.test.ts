import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { childEnv } from '../helpers/serve.js';

/**
 * A home that is not a path must be refused before anything is written: an
 * object given as the home once became "[object Object]", a relative
 * directory, and a whole hub home was created in the working directory.
 */
describe('the home option', () => {
  it('home option - openHub refuses a home that is not a path string, naming the field, and writes nothing', async () => {
    const before = fs.readdirSync('.').sort();
    for (const home of [{ home: '/tmp/x' }, 42, undefined, '', '  ']) {
      await expect(openHub({ home: home as never, logger: createSilentLogger() })).rejects.toMatchObject({ code: 'INVALID_INPUT', field: 'home' });
    }
    expect(fs.readdirSync('.').sort()).toEqual(before);
    expect(fs.existsSync('[object Object]')).toBe(false);
  });

  it('home option - a test child is never given a home that is not an absolute path', () => {
    expect(() => childEnv({ home: '/tmp/x' } as never)).toThrow(/absolute path/);
    expect(() => childEnv('relative/home')).toThrow(/absolute path/);
    expect(childEnv('/tmp/parley-home').PARLEY_HOME).toBe('/tmp/parley-home');
  });
});
