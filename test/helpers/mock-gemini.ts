import { startLoopbackServer } from './loopback-server.js';

/**
 * A stand-in for Gemini CLI's LLM provider: the Gemini API
 * (generativelanguage v1beta) on loopback, reached through
 * GOOGLE_GEMINI_BASE_URL. It answers the agent's main-loop requests (the
 * streamed `:streamGenerateContent` calls that offer tools) from a script and
 * keeps each such request, so a test can read what the agent's context held:
 * the function declarations it was offered and the text hooks added. Side
 * calls (a model router's or a summary's `:generateContent`, `:countTokens`)
 * get a short answer and are not kept.
 */
export type ScriptedTurn = { text: string } | { call: { name: string; args: Record<string, unknown> } };

export interface Part {
  text?: string;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: unknown };
}

export interface GenerateRequest {
  contents?: Array<{ role: string; parts: Part[] }>;
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
}

export interface MockGemini {
  url: string;
  /** The main-loop requests received so far, in order. */
  requests: GenerateRequest[];
  close: () => Promise<void>;
}

/** `script(request, index)` answers the index-th main-loop request. */
export async function startMockGemini(script: (request: GenerateRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>): Promise<MockGemini> {
  const requests: GenerateRequest[] = [];
  const server = await startLoopbackServer(async (req, body, res) => {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith('/v1beta/models/')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not here","status":"NOT_FOUND"}}');
      return;
    }
    if (url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens":1}');
      return;
    }
    const request = JSON.parse(body) as GenerateRequest;
    const offersTools = (request.tools ?? []).some((tool) => (tool.functionDeclarations?.length ?? 0) > 0);
    let turn: ScriptedTurn = { text: 'ok' };
    if (url.includes(':streamGenerateContent') && offersTools) {
      const index = requests.length;
      requests.push(request);
      turn = await script(request, index);
    }
    const chunk = { candidates: [{ index: 0, content: { role: 'model', parts: [part(turn)] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } };
    if (url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
    }
  });
  return { url: server.url, requests, close: server.close };
}

function part(turn: ScriptedTurn): Part {
  return 'text' in turn ? { text: turn.text } : { functionCall: { name: turn.call.name, args: turn.call.args } };
}

/** The names of the functions a request offered the model. */
export function offeredNames(request: GenerateRequest): string[] {
  return (request.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name));
}

/** The text of a request's last turn (a tool result with a hook's context, a continuation prompt), flattened. */
export function lastTurnText(request: GenerateRequest): string {
  const last = request.contents?.at(-1);
  return last === undefined ? '' : JSON.stringify(last.parts);
}
