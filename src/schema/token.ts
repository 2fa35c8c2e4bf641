import { z } from 'zod';

/**
 * What a bearer token is for. A participant's own (`parley join`, a rotation,
 * a signed-in browser) lasts until it is revoked; a coordinator's is minted
 * for one adapter run, revoked as the run ends, and every one left from an
 * earlier life of the hub is revoked when the hub starts (a hub that was
 * killed could not revoke them), so none outlives the run it was made for.
 */
export const TokenKindSchema = z.enum(['participant', 'coordinator']);
export type TokenKind = z.infer<typeof TokenKindSchema>;
