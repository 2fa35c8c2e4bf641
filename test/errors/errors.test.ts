import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, httpStatusOf, jsonRpcCodeOf } from '../../src/errors/codes.js';
import { ParleyError, fromZodError, toParleyError } from '../../src/errors/parley-error.js';

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
});
