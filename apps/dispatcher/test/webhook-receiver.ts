import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
  /** The parsed `{ type, timestamp, data }`. */
  event: { type: string; timestamp: string; data: Record<string, unknown> };
  /** 1 for the first request with this webhook-id, 2 for the second, ... */
  attempt: number;
}

/** What the receiver does with a request: answer a status, redirect, drop the connection, or never answer. */
export type ReceiverAction = { status: number; location?: string } | "destroy" | "hang";

/**
 * A webhook receiver on 127.0.0.1 (tests send traffic nowhere else). `decide` picks the action
 * per request; every request is recorded, and `waitFor` resolves when a predicate over the
 * recorded requests holds (checked on every request: no sleeps).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly attempts = new Map<string, number>();
  private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private readonly server = createServer((req, res) => void this.handle(req, res));
  url = "";

  constructor(public decide: (r: ReceivedRequest) => ReceiverAction = () => ({ status: 204 })) {}

  async start(path = "/hook"): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const id = headers["webhook-id"] ?? "";
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    let event: ReceivedRequest["event"];
    try {
      event = JSON.parse(body) as ReceivedRequest["event"];
    } catch {
      event = { type: "unparsable", timestamp: "", data: {} };
    }
    const received: ReceivedRequest = { headers, body, event, attempt };
    this.requests.push(received);
    const action = this.decide(received);
    if (action === "destroy") req.socket.destroy();
    else if (action === "hang") this.hanging.add(res);
    else {
      res.writeHead(action.status, action.location === undefined ? {} : { location: action.location });
      res.end("ok");
    }
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** Resolves once `check` holds (now or after a later request). */
  waitFor(check: (requests: ReceivedRequest[]) => boolean): Promise<void> {
    if (check(this.requests)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check: () => check(this.requests), resolve }));
  }

  /** Requests with this webhook-id. */
  byId(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers["webhook-id"] === id);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
