/**
 * A contained workaround for a leak in the MCP SDK 1.x Streamable HTTP
 * transport. In JSON-response mode each POST registers an entry in the
 * transport's private `_streamMapping` (holding the pending HTTP response's
 * resolver, and through it the request); when the response is sent the
 * resolver is called but the entry is never removed, so a long-lived session
 * keeps one entry per call it ever answered until it closes (hundreds of MB
 * for a busy agent; upstream typescript-sdk issue #2559).
 *
 * This wraps the map's `set` so that an entry with a JSON resolver removes
 * itself the moment its response is resolved. It only touches entries the
 * transport has finished with, so it cannot change what a client sees. The
 * test `test/mcp/sdk-json-response-leak.test.ts` pins the SDK's behaviour:
 * when an SDK upgrade stops leaking, it fails, and this file can go.
 */

import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

interface JsonStreamEntry {
  resolveJson?: (response: Response) => void;
}

export function releaseFinishedJsonResponses(transport: WebStandardStreamableHTTPServerTransport): void {
  const mapping = streamMappingOf(transport);
  const set = mapping.set.bind(mapping);
  mapping.set = (streamId: string, entry: JsonStreamEntry) => {
    const resolve = entry.resolveJson;
    if (typeof resolve === 'function') {
      entry.resolveJson = (response) => {
        if (mapping.get(streamId) === entry) mapping.delete(streamId);
        resolve(response);
      };
    }
    return set(streamId, entry);
  };
}

/**
 * How many JSON responses a transport holds: those still being answered, plus
 * (without the release) every one ever answered. Diagnostics and tests; a
 * session's standalone notification stream is not counted.
 */
export function heldJsonResponses(transport: WebStandardStreamableHTTPServerTransport): number {
  let held = 0;
  for (const entry of streamMappingOf(transport).values()) if (typeof entry.resolveJson === 'function') held++;
  return held;
}

function streamMappingOf(transport: WebStandardStreamableHTTPServerTransport): Map<string, JsonStreamEntry> {
  const mapping = (transport as unknown as { _streamMapping?: unknown })._streamMapping;
  if (!(mapping instanceof Map)) {
    // Fail loudly at session start rather than leak silently if the SDK's internals move.
    throw new Error('The MCP SDK transport no longer has a _streamMapping map; revisit src/mcp/json-response-release.ts.');
  }
  return mapping as Map<string, JsonStreamEntry>;
}
