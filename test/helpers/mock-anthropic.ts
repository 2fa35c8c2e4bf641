import type http from 'node:http';
import { startLoopbackServer } from './loopback-server.js';

/**
 * A stand-in for the one part of an agent CLI's world that cannot exist here:
 * its LLM provider. It speaks the Anthropic Messages API on loopback (the
 * streamed form Claude Code asks for), answers the agent's main-loop requests
 * (those that offer tools) from a script, and keeps every such request so a
 * test can read what the agent's context held: the tools it was offered and
 * the text hooks added. Side requests without tools (titles, summaries) get a
 * short text answer and are not kept.
 */
export type ScriptedTurn = { text: string } | { tool: { name: string; input: Record<string, unknown> } };

export interface MessagesRequest {
  model?: string;
  system?: unknown;
  tools?: Array<{ name: string }>;
  messages?: Array<{ role: string; content: unknown }>;
}

export interface MockAnthropic {
  url: string;
  /** The main-loop requests received so far, in order. */
  requests: MessagesRequest[];
  close: () => Promise<void>;
}

/** `script(request, index)` answers the index-th main-loop request. */
export async function startMockAnthropic(script: (request: MessagesRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>): Promise<MockAnthropic> {
  const requests: MessagesRequest[] = [];
  let replies = 0;
  const server = await startLoopbackServer(async (req, body, res) => {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
      return;
    }
    if (url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1}');
      return;
    }
    const request = JSON.parse(body) as MessagesRequest;
    let turn: ScriptedTurn = { text: 'ok' };
    if ((request.tools?.length ?? 0) > 0) {
      const index = requests.length;
      requests.push(request);
      turn = await script(request, index);
    }
    stream(res, `msg_${++replies}`, request.model ?? 'claude', turn);
  });
  return { url: server.url, requests, close: server.close };
}

/** One assistant message as the API streams it: a text block or a tool call. */
function stream(res: http.ServerResponse, id: string, model: string, turn: ScriptedTurn): void {
  const events: Array<[string, Record<string, unknown>]> = [
    ['message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
  ];
  if ('text' in turn) {
    events.push(
      ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.text } }],
      ['content_block_stop', { index: 0 }],
      ['message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }],
    );
  } else {
    events.push(
      ['content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${id}`, name: turn.tool.name, input: {} } }],
      ['content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(turn.tool.input) } }],
      ['content_block_stop', { index: 0 }],
      ['message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } }],
    );
  }
  events.push(['message_stop', {}]);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  res.end();
}

/** The text of a request's last message (a tool result, a hook's context, a continuation reason), flattened. */
export function lastTurnText(request: MessagesRequest): string {
  const last = request.messages?.at(-1);
  return last === undefined ? '' : JSON.stringify(last.content);
}
