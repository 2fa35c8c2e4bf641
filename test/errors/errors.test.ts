import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, httpStatusOf, jsonRpcCodeOf } from '../../src/errors/codes.js';
import { HINTS, type Surface } from '../../src/errors/hints.js';
import { ParleyError, fromZodError, parleyErrorFromBody, toParleyError } from '../../src/errors/parley-error.js';

describe('errors', () => {
  it('errors - every code maps once to an HTTP status and a JSON-RPC code', () => {
    for (const code of Object.keys(ERROR_CODES) as Array<keyof typeof ERROR_CODES>) {
      expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
      expect(httpStatusOf(code)).toBeLessThan(600);
      expect(jsonRpcCodeOf(code)).toBeLessThan(-32000 + 1);
      const error = new ParleyError(code, 'm');
      expect(error.httpStatus).toBe(httpStatusOf(code));
      expect(error.toJSON()).toEqual({ code, message: 'm' });
    }
    expect(httpStatusOf('PARTICIPANT_MUTED')).toBe(403);
    expect(httpStatusOf('HOP_LIMIT')).toBe(422);
    expect(httpStatusOf('NOT_FOUND')).toBe(404);
    expect(httpStatusOf('INVALID_INPUT')).toBe(400);
  });

  it('errors - a zod failure names the field and says what to do', () => {
    const schema = z.strictObject({ limit: z.number().max(10), name: z.string().max(3) });
    const tooBig = fromZodError(schema.safeParse({ limit: 11, name: 'a' }).error!);
    expect(tooBig).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
    expect(tooBig.message).toContain('Use at most 10');
    const tooLong = fromZodError(schema.safeParse({ limit: 1, name: 'abcd' }).error!);
    expect(tooLong.message).toContain('Shorten it');
    const unknown = fromZodError(schema.safeParse({ limit: 1, name: 'a', extra: 1 }).error!, 'input');
    expect(unknown).toMatchObject({ field: 'input.extra' });
    expect(unknown.message).toContain('unknown field');
  });

  it('errors - anything thrown becomes a ParleyError at the boundary', () => {
    expect(toParleyError(new Error('boom'))).toMatchObject({ code: 'INTERNAL' });
    expect(toParleyError('text')).toMatchObject({ code: 'INTERNAL' });
    const own = new ParleyError('HOP_LIMIT', 'x');
    expect(toParleyError(own)).toBe(own);
    // A zod error thrown by a parse is bad input naming its field (recognised without loading zod at start-up).
    const thrown = (() => {
      try {
        z.strictObject({ limit: z.number() }).parse({ limit: 'ten' });
      } catch (error) {
        return error;
      }
    })();
    expect(toParleyError(thrown)).toMatchObject({ code: 'INVALID_INPUT', field: 'limit' });
  });

  it('errors - a hint is said in each surface\'s words, and survives the REST hop to be said again', () => {
    const error = new ParleyError('NOT_FOUND', 'No thread "x" in session "s".', { field: 'thread', hint: 'list-threads' });
    const surfaces: Surface[] = ['cli', 'mcp', 'rest', 'library'];
    expect(surfaces.map((surface) => error.messageFor(surface))).toEqual(surfaces.map((surface) => `No thread "x" in session "s". ${HINTS['list-threads'][surface]}`));
    // No surface's hint names another surface's verb.
    for (const hint of Object.values(HINTS)) {
      expect(hint.cli).not.toMatch(/\w\(\)|_|\/api\//);
      expect(hint.mcp).not.toMatch(/\w\(\)|parley |\/api\//);
      expect(hint.rest).not.toMatch(/\w\(\)|parley |_/);
    }
    const body = JSON.parse(JSON.stringify({ error })) as unknown;
    expect(body).toEqual({ error: { code: 'NOT_FOUND', message: error.messageFor('rest'), field: 'thread', hint: 'list-threads' } });
    const again = parleyErrorFromBody(body, 404);
    expect([again.code, again.field, again.hint, again.messageFor('cli')]).toEqual(['NOT_FOUND', 'thread', 'list-threads', error.messageFor('cli')]);
    // A hub that words its hint otherwise keeps its whole message; an unknown code is INTERNAL.
    const drifted = parleyErrorFromBody({ error: { code: 'NOT_FOUND', message: 'No thread. See elsewhere.', hint: 'list-threads' } }, 404);
    expect([drifted.hint, drifted.messageFor('mcp')]).toEqual([undefined, 'No thread. See elsewhere.']);
    expect(parleyErrorFromBody({ error: { code: 'NOPE', message: 'm' } }, 500).code).toBe('INTERNAL');
    expect(parleyErrorFromBody('not json', 502).message).toBe('The hub answered 502.');
  });
});
