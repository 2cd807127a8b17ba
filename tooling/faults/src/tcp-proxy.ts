import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * How the proxy treats traffic: `pass` forwards at once; `latency` delays every chunk by `ms`
 * (both directions, order kept); `blackhole` forwards nothing (new connections are accepted
 * but hear nothing), like a network partition: TCP would retransmit, so what was held is
 * delivered when the partition heals, unless it is healed with `reset`.
 */
export type ProxyMode = { kind: "pass" } | { kind: "latency"; ms: number } | { kind: "blackhole" };

/** A TCP proxy on 127.0.0.1 between the servers and PostgreSQL. */
export interface TcpProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  /** Points new connections at another upstream port (after PostgreSQL restarted on a new one). */
  setTarget(port: number): void;
  /** Destroys every open connection (both sides), as a partition that outlived TCP's patience. */
  resetAll(): void;
  connections(): number;
  close(): Promise<void>;
}

interface Lane {
  out: Socket;
  /** Chunks in arrival order, each with the time it may leave (never earlier than the one before). */
  queue: { chunk: Buffer; releaseAt: number }[];
  lastReleaseAt: number;
  timer: NodeJS.Timeout | null;
}

interface Pipe {
  client: Socket;
  upstream: Socket;
  toUpstream: Lane;
  toClient: Lane;
}

/** Starts the proxy on an ephemeral 127.0.0.1 port forwarding to 127.0.0.1:`targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let target = targetPort;
  let mode: ProxyMode = { kind: "pass" };
  const pipes = new Set<Pipe>();

  // Writes what is due, in order; a blackhole holds everything until the mode changes.
  const pump = (lane: Lane) => {
    if (lane.timer !== null) {
      clearTimeout(lane.timer);
      lane.timer = null;
    }
    if (mode.kind === "blackhole") return;
    const now = Date.now();
    while (lane.queue.length > 0) {
      const head = lane.queue[0] as { chunk: Buffer; releaseAt: number };
      if (head.releaseAt > now) {
        lane.timer = setTimeout(() => pump(lane), head.releaseAt - now);
        return;
      }
      lane.queue.shift();
      if (!lane.out.destroyed) lane.out.write(head.chunk);
    }
  };
  const forward = (lane: Lane, chunk: Buffer) => {
    const delay = mode.kind === "latency" ? mode.ms : 0;
    lane.lastReleaseAt = Math.max(Date.now() + delay, lane.lastReleaseAt);
    lane.queue.push({ chunk, releaseAt: lane.lastReleaseAt });
    pump(lane);
  };
  const lane = (out: Socket): Lane => ({ out, queue: [], lastReleaseAt: 0, timer: null });

  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: "127.0.0.1", port: target });
    const pipe: Pipe = { client, upstream, toUpstream: lane(upstream), toClient: lane(client) };
    pipes.add(pipe);
    const close = () => {
      pipes.delete(pipe);
      if (pipe.toUpstream.timer) clearTimeout(pipe.toUpstream.timer);
      if (pipe.toClient.timer) clearTimeout(pipe.toClient.timer);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => forward(pipe.toUpstream, chunk));
    upstream.on("data", (chunk: Buffer) => forward(pipe.toClient, chunk));
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the proxy has no address");

  return {
    port: address.port,
    setMode(next) {
      mode = next;
      for (const pipe of pipes) {
        pump(pipe.toUpstream);
        pump(pipe.toClient);
      }
    },
    setTarget(port) {
      target = port;
    },
    resetAll() {
      for (const pipe of [...pipes]) {
        pipe.client.destroy();
        pipe.upstream.destroy();
      }
    },
    connections: () => pipes.size,
    close() {
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.upstream.destroy();
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
