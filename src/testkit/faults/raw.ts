/**
 * Servers below HTTP for the fault kit: they own the socket, so they can misbehave in ways node:http
 * will not (headers one byte a second, a reset in the middle of a body, TLS answered with junk), and
 * a CONNECT proxy that tunnels to them. All listen on 127.0.0.1 only.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startForwardProxy } from '../forward-proxy.ts';

export interface RawRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: Record<string, string>;
}

export interface FaultServer {
  port: number;
  /** http://127.0.0.1:PORT (or https:// for TLS fixtures). */
  url: string;
  /** Requests (or connections, for servers that never see a request) per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Sockets of a server, so close() can end the hostile ones that never end by themselves. */
function tracked(server: net.Server): { close(): Promise<void> } {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    // A client that gives up resets the socket: that is the expected end here, not a fixture failure.
    s.on('error', () => undefined);
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function listen(server: net.Server, host = '127.0.0.1', port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export const count = (hits: Map<string, number>, key: string): void => void hits.set(key, (hits.get(key) ?? 0) + 1);

/**
 * A TCP server that reads each request head itself and hands the socket to `onRequest`, which may
 * answer however badly it likes. One request per connection (it answers `Connection: close` or never).
 */
export async function startRawHttp(onRequest: (req: RawRequest, socket: net.Socket) => void): Promise<FaultServer> {
  const hits = new Map<string, number>();
  const server = net.createServer((socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [line, ...rest] = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method = 'GET', path = '/'] = line.split(' ');
      const headers: Record<string, string> = {};
      for (const h of rest) {
        const i = h.indexOf(':');
        if (i > 0) headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
      }
      count(hits, path);
      onRequest({ method, path, headers }, socket);
    };
    socket.on('data', onData);
  });
  const life = tracked(server);
  const port = await listen(server);
  return { port, url: `http://127.0.0.1:${port}`, hits, close: life.close };
}

/** Writes a complete small HTTP/1.1 answer (after `before`, raw bytes in the same write) and closes. */
export function answer(socket: net.Socket, status: number, body = '', headers: Record<string, string> = {}, before = ''): void {
  const lines = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Status'}`, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  socket.end(before + lines.join('\r\n') + '\r\n\r\n' + body);
}

/**
 * Writes `bytes` one at a time, one every `everyMs`, until the socket closes (or the bytes run out):
 * the slow-loris pace that defeats a timeout armed only once.
 */
export function drip(socket: net.Socket, bytes: Buffer, everyMs = 1000): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= bytes.length) return clearInterval(timer);
    socket.write(bytes.subarray(i, ++i));
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

/**
 * A TCP server that answers whatever the client sends first (a TLS ClientHello, for an https:// URL)
 * with junk, or with nothing at all when `junk` is null (a handshake that never completes). Null, not
 * undefined: an undefined argument takes the default junk (tls-silent-via-proxy got junk so).
 */
export async function startTlsGarbage(junk: Buffer | null = Buffer.from('HTTP/1.1 200 OK\r\n\r\nthis is not TLS at all \x00\x01\x02\xff'.repeat(8), 'latin1')): Promise<FaultServer> {
  const hits = new Map<string, number>();
  const server = net.createServer((socket) => {
    count(hits, 'connection');
    socket.once('data', () => {
      if (junk) socket.end(junk);
    });
  });
  const life = tracked(server);
  const port = await listen(server);
  return { port, url: `https://127.0.0.1:${port}`, hits, close: life.close };
}

/** The testkit's forward proxy: CONNECT tunnels to 127.0.0.1 at the port asked for, plain http relayed. */
export async function startConnectProxy(): Promise<FaultServer> {
  const p = await startForwardProxy();
  return { port: p.port, url: p.url, hits: p.hits, close: p.close };
}

/** A server on another loopback address (127.0.0.2, ::1) that only counts what reaches it: it must stay 0. */
export async function startCanary(host: string, port = 0): Promise<FaultServer | undefined> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    count(hits, req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/turtle' }).end('<urn:x:canary> <urn:x:reached> "the private address was fetched" .\n');
  });
  const life = tracked(server);
  try {
    const p = await listen(server, host, port);
    return { port: p, url: `http://${host.includes(':') ? `[${host}]` : host}:${p}`, hits, close: life.close };
  } catch {
    return undefined; // no such address on this machine (IPv6 off): the case says so and skips that form
  }
}

/** Sum of hits of a fixture's servers. */
export const total = (hits: Map<string, number>): number => [...hits.values()].reduce((a, b) => a + b, 0);
