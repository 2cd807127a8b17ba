import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { listenHttp } from "./listen-http.ts";

const connected = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
const closedByServer = (socket: Socket): Promise<void> => new Promise((resolve) => socket.once("close", () => resolve()));

describe("listenHttp's drain", () => {
  it("ends a connection that never sent a request and one idle after its response, and finishes the request in flight first", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const listener = await listenHttp(async (request: Request) => {
      if (new URL(request.url).pathname === "/slow") await held;
      return new Response("ok");
    }, { hostname: "127.0.0.1", port: 0 });
    const port = listener.address.port;
    const silent = await connected(port);
    const silentClosed = closedByServer(silent);
    const idle = await connected(port);
    const idleClosed = closedByServer(idle);
    const idleAnswered = new Promise<void>((r) => idle.once("data", () => r()));
    idle.write("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    await idleAnswered;
    const slowAnswer = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 100));
    let drained = false;
    const closing = listener.close().then(() => (drained = true));
    // Without the drain's own bookkeeping the silent connection stays until the 66 s headers timeout.
    await Promise.all([silentClosed, idleClosed]);
    expect(drained).toBe(false);
    release();
    expect(await slowAnswer).toBe("ok");
    await closing;
    expect(drained).toBe(true);
  });
});
