/**
 * The hello exchange on the wire (`/parley/hello/1`): the dialling side
 * writes its hello and reads the answer, a hello or a refusal; the answering
 * side reads one, answers with its own, or says why it refuses. What a hello
 * holds and how it is checked is hello.ts and hello-checks.ts; what a link
 * does with it is peer-links.ts.
 */

import type { Connection, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { HELLO_PROTOCOL, MAX_HELLO_BYTES } from './hello.js';
import { dropReasonOf, LinkRefused } from './hello-checks.js';
import { decodeRefusal, encodeRefusal } from './refusal.js';

/** Writes `hello` to the peer on `connection` and reads its answer; throws LinkRefused when it refuses. */
export async function askHello(connection: Connection, hello: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(timeoutMs);
  const stream = await connection.newStream(HELLO_PROTOCOL, { signal });
  const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
  await framed.write(hello, { signal });
  const reply = (await framed.read({ signal })).subarray();
  await stream.close();
  const refusal = decodeRefusal(reply);
  if (refusal) throw new LinkRefused(refusal.reason, `refused by the peer: ${refusal.message}`);
  return reply;
}

/**
 * Reads the peer's hello from `stream` and writes what `answer` makes of it
 * (this hub's hello; it throws to refuse). A refusal is written back with its
 * reason, or the stream reset when the frame could not be read at all; the
 * error is then thrown on, to be logged and counted.
 */
export async function answerHello(stream: Stream, timeoutMs: number, answer: (hello: Uint8Array) => Uint8Array): Promise<void> {
  const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await framed.write(answer((await framed.read({ signal })).subarray()), { signal });
    await stream.close();
  } catch (error) {
    const cause = error instanceof Error ? error : new Error(String(error));
    const reason = dropReasonOf(error);
    try {
      // A frame that could not be read (too long, cut short) resets the stream; a hello that was read is answered why.
      if (reason === 'malformed-frame') stream.abort(cause);
      else {
        await framed.write(encodeRefusal(reason, cause.message), { signal });
        await stream.close();
      }
    } catch {
      // The peer is gone already: the refusal is logged and counted all the same.
      stream.abort(cause);
    }
    throw error;
  }
}
