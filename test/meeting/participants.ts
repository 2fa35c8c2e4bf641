/** The participants of the meeting tests. */
export const alice = { id: 'a_alice', handle: 'alice' };
export const bob = { id: 'a_bob', handle: 'bob' };
export const carol = { id: 'a_carol', handle: 'carol' };
