import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../src/util/atomic-write.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';

/** Replacing a file whole: the mode given is the file's, and a write that fails leaves nothing beside it. */
const scratch = tempHomesRemovedAfterEach('parley-atomic-');

describe('writeFileAtomically', () => {
  it('atomic write - the file is replaced whole with exactly the mode given, and only it is left in the folder', () => {
    const dir = scratch();
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, 'old');
    writeFileAtomically(file, 'new', 0o640);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });

  it('atomic write - when the rename fails the error is thrown and the temporary file is removed', () => {
    const dir = scratch();
    const file = path.join(dir, 'taken');
    // A non-empty folder at the name: the rename over it fails.
    fs.mkdirSync(file);
    fs.writeFileSync(path.join(file, 'inside'), 'x');
    expect(() => writeFileAtomically(file, 'text')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(fs.readdirSync(dir)).toEqual(['taken']);
  });
});
