import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

// The proxy against a real echo server on 127.0.0.1: bytes keep their order across mode changes,
// a blackhole holds traffic until it heals, and a reset closes every connection.

let echo: Server | null = null;
let proxy: TcpProxy | null = null;

async function startEcho(): Promise<number> {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo?.listen(0, "127.0.0.1", () => r()));
  const address = echo.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return address.port;
}

function connect(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = createConnection({ host: "127.0.0.1", port }, () => resolve({ socket, received: () => data, closed }));
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    socket.on("data", (c: Buffer) => (data += c.toString("utf8")));
    socket.once("error", reject);
  });
}

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

afterEach(async () => {
  await proxy?.close();
  await new Promise<void>((r) => (echo ? echo.close(() => r()) : r()));
  proxy = null;
  echo = null;
});

describe("startTcpProxy", () => {
  it("keeps the byte order when latency is switched off mid-stream", async () => {
    proxy = await startTcpProxy(await startEcho());
    const client = await connect(proxy.port);
    proxy.setMode({ kind: "latency", ms: 150 });
    client.socket.write("a");
    client.socket.write("b");
    await new Promise((r) => setTimeout(r, 20));
    proxy.setMode({ kind: "pass" });
    client.socket.write("c");
    await until(() => client.received().length === 3);
    expect(client.received()).toBe("abc");
    client.socket.destroy();
  });

  it("holds traffic in a blackhole and delivers it when the partition heals", async () => {
    proxy = await startTcpProxy(await startEcho());
    const client = await connect(proxy.port);
    proxy.setMode({ kind: "blackhole" });
    client.socket.write("held");
    await new Promise((r) => setTimeout(r, 100));
    expect(client.received()).toBe("");
    proxy.setMode({ kind: "pass" });
    await until(() => client.received() === "held");
    client.socket.destroy();
  });

  it("closes every connection on reset", async () => {
    proxy = await startTcpProxy(await startEcho());
    const client = await connect(proxy.port);
    await until(() => proxy?.connections() === 1);
    proxy.resetAll();
    await client.closed;
    await until(() => proxy?.connections() === 0);
  });
});
