import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * Replaces `file` with `text` whole: the text goes to a new file beside it,
 * flushed, then renamed over it, so a reader sees the old file or the new
 * one, never half of one. The temporary file gets a random name and is
 * created exclusively (O_EXCL), so nothing planted under a name known in
 * advance, a symlink say, is opened or followed; it is removed if anything
 * fails. `mode` is set exactly (the umask narrows a new file's); left out, a
 * new file gets the default one.
 */
export function writeFileAtomically(file: string, text: string, mode?: number): void {
  const temporary = `${file}.parley-${crypto.randomBytes(8).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', mode ?? 0o666);
  try {
    try {
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
