import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server on 127.0.0.1 (an ephemeral port) that hands each request to
 * `answer` with its body read whole: the frame of the stand-in LLM providers.
 */
export interface LoopbackServer {
  url: string;
  close: () => Promise<void>;
}

export async function startLoopbackServer(answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void | Promise<void>): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => void answer(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
