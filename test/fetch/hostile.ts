/** Servers on 127.0.0.1 that misbehave below HTTP (raw sockets), and a forward proxy that also tunnels. */
import http from 'node:http';
import net from 'node:net';

export interface RawServer {
  port: number;
  close(): Promise<void>;
}

/** A TCP server that hands each connection to `onSocket` and destroys every socket on close. */
export async function startRawServer(onSocket: (socket: net.Socket) => void, host = '127.0.0.1'): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `text` one byte per `everyMs` until it is written or the socket closes. */
export function trickle(socket: net.Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i < text.length && !socket.destroyed) socket.write(text[i++]);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/** After the request arrives, `then` answers on the raw socket. */
export const onRequest = (then: (socket: net.Socket) => void) => (socket: net.Socket) => socket.once('data', () => then(socket));

export interface TestProxy {
  url: string;
  /** Absolute-URI requests and CONNECT targets, in order. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * A tiny forward proxy: absolute-URI requests are relayed to 127.0.0.1 (the proxy "knows" every
 * name), CONNECT host:port opens a tunnel to 127.0.0.1:port, unless `silentConnect` makes it never answer.
 */
export async function startProxy(options: { silentConnect?: boolean } = {}): Promise<TestProxy> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('proxy: absolute URI expected');
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, via: '1.1 test-proxy' });
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end('proxy: upstream failed'));
    req.pipe(upstream);
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    client.on('error', () => undefined);
    if (options.silentConnect) return;
    const port = Number((req.url ?? '').split(':').pop());
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
