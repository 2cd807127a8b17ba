import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { CREDENTIAL_CACHE_TTL_MS, DomainError, callerRefusal } from "@agentq/core";
import type { CoreDeps, CredentialPrincipal, Principal } from "@agentq/core";
import { InboxWatch, type InboxWatchOptions } from "./inbox-watch.ts";

/** The bounds of this process's MCP sessions (README "Sessions and push"). */
export interface McpSessionLimits {
  /** Sessions one AI account may hold (default 16). */
  perAccount: number;
  /** Sessions one workspace may hold (default 256). */
  perWorkspace: number;
  /** Sessions this process holds at most (default 10,000). */
  total: number;
  /** A session with no request and no open stream for this long is closed (default 10 minutes). */
  idleMs: number;
  /** An SSE comment is written on an open stream this often, so proxies keep it (default 25 s). */
  keepAliveMs: number;
  /** Sessions holding a stream have their credential, account and workspace read again this often (default 30 s, the credential cache's bound). */
  recheckMs: number;
  /** Inbox notifications to one session: at most one per this many ms, the last of a burst sent at the end of it (default 100 ms). */
  notifyGapMs: number;
  /** Unsent bytes a stream may hold for a client that does not read before it is closed (default 64 KB). */
  maxBufferedBytes: number;
}

/** The defaults of `McpSessionLimits`. */
export const DEFAULT_MCP_SESSION_LIMITS: McpSessionLimits = {
  perAccount: 16,
  perWorkspace: 256,
  total: 10_000,
  idleMs: 10 * 60_000,
  keepAliveMs: 25_000,
  recheckMs: CREDENTIAL_CACHE_TTL_MS,
  notifyGapMs: 100,
  maxBufferedBytes: 64 * 1024,
};

/** Ended sessions remembered (so that their ids get 404 rather than a stateless answer), at most. */
const ENDED_REMEMBERED = 10_000;
/** Credentials whose OAuth grant (or none) is remembered, at most. */
const GRANTS_REMEMBERED = 10_000;
/** The longest session id looked at (ours are 47 characters). */
const SESSION_ID_MAX_LENGTH = 128;

/** Where a request's `Mcp-Session-Id` leads (McpSessions.resolve). */
export type SessionLookup =
  /** A session of this process, owned by the caller's credential. */
  | { kind: "here"; session: McpSession }
  /**
   * An id this service issued to the caller's credential that this process does not hold (it
   * was opened on another process, or before a restart): the request is answered statelessly;
   * what needs the session itself (its stream, a subscription, DELETE) gets 404.
   */
  | { kind: "elsewhere" }
  /** No session of the caller's: unknown, ended here, malformed, or another credential's. */
  | { kind: "none" };

/** The URI of the inbox resource. */
export const INBOX_URI = "agentq://inbox";

/** The notification a subscribed session gets when its inbox may have changed. */
const INBOX_UPDATED = `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: INBOX_URI } })}\n\n`;

const encoder = new TextEncoder();

/** The GET stream of a session (Server-Sent Events), while the client holds it open. */
interface SessionStream {
  controller: ReadableStreamDefaultController<Uint8Array>;
  bufferedBytes: number;
  keepAlive: ReturnType<typeof setInterval>;
}

/**
 * One stateful MCP session (Streamable HTTP, `Mcp-Session-Id`), owned by the credential that
 * initialized it: it holds the GET stream and the inbox subscription. Everything else a
 * session's requests do is answered as a stateless request is.
 */
export interface McpSession {
  readonly id: string;
  readonly workspaceId: string;
  readonly accountId: string;
  readonly credentialId: string;
  /** Subscribes the session to `agentq://inbox` (idempotent). */
  subscribeInbox(): void;
  /** Ends the inbox subscription (idempotent). */
  unsubscribeInbox(): void;
  /** True while subscribed to the inbox. */
  readonly subscribed: boolean;
}

/**
 * This process's MCP sessions (MCP Streamable HTTP session management, DESIGN §2c Push): created
 * by an `initialize`, found by their id for the credential that owns them only, closed by DELETE,
 * after `idleMs` without a request or an open stream, when their owner's credential, account or
 * workspace is no longer active, and all at once by `close()` (the server's drain).
 *
 * Bounds: at most `perAccount` sessions per AI account, `perWorkspace` per workspace and `total`
 * in the process. At a bound, the least recently used session without an open stream (one its
 * client left without a DELETE) is closed to make room; when every session there holds a stream,
 * `open` refuses with 429 SVC_RATE_LIMITED (`details.limit`: `mcp_sessions_per_account`,
 * `mcp_sessions_per_workspace` or `mcp_sessions`). Sessions live in this process's memory: a
 * deployment of several MCP processes routes a session's requests by its `Mcp-Session-Id`
 * header (docs/scaling.md); requests without one go anywhere.
 */
export class McpSessions {
  private readonly limits: McpSessionLimits;
  /** Every session, least recently used first (a touch moves one to the end). */
  private readonly sessions = new Map<string, SessionState>();
  private readonly byAccount = new Map<string, Set<SessionState>>();
  private readonly byWorkspace = new Map<string, Set<SessionState>>();
  /** Ids of sessions ended in this process, oldest first, so that they get 404 (MCP: a terminated session's id). */
  private readonly ended = new Set<string>();
  /** The OAuth grant of each credential seen (null: none), oldest first. */
  private readonly grantOf = new Map<string, string | null>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  private closed = false;
  private readonly stateless: boolean;
  readonly inbox: InboxWatch;

  constructor(
    private readonly deps: CoreDeps,
    options: { limits?: Partial<McpSessionLimits>; inbox?: InboxWatchOptions; /** True: every initialize is answered without a session (a server of several workers: a session's requests could reach another process). */ stateless?: boolean } = {},
  ) {
    this.limits = { ...DEFAULT_MCP_SESSION_LIMITS, ...options.limits };
    this.stateless = options.stateless === true;
    this.inbox = new InboxWatch(deps, options.inbox);
    this.sweeper = setInterval(() => void this.sweep(), Math.min(this.limits.recheckMs, this.limits.idleMs, 60_000));
    this.sweeper.unref?.();
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  /** False once `close()` ran: `initialize` is then answered without a session. */
  get accepting(): boolean {
    return !this.closed && !this.stateless;
  }

  /**
   * Opens a session for the principal (the credential that sent `initialize`).
   * @throws DomainError SVC_RATE_LIMITED at a bound where every session holds an open stream.
   */
  async open(principal: CredentialPrincipal): Promise<McpSession> {
    const owner = { workspaceId: principal.workspace.id, accountId: principal.account.id };
    const ownerKey = await this.ownerKeyOf(principal.credential);
    this.makeRoom(this.byAccount.get(owner.accountId), this.limits.perAccount, "mcp_sessions_per_account");
    this.makeRoom(this.byWorkspace.get(owner.workspaceId), this.limits.perWorkspace, "mcp_sessions_per_workspace");
    this.makeRoom(this.sessions, this.limits.total, "mcp_sessions");
    const session = new SessionState(this, this.issueId(ownerKey), owner.workspaceId, owner.accountId, principal.credential.id, ownerKey);
    this.sessions.set(session.id, session);
    addTo(this.byAccount, owner.accountId, session);
    addTo(this.byWorkspace, owner.workspaceId, session);
    return session;
  }

  /**
   * Where the session id leads for this principal (`SessionLookup`). A session is found by its
   * owner only: the credential that opened it, or the same authorization continued (the next
   * access token of the same OAuth grant after a refresh, the successor of a rotation), to which
   * it then moves. Any other credential, even of the same account, gets `none`, as an unknown id
   * does, on this process and on any other (the id carries an HMAC of its owner under the
   * server's secret, so every process of the service can tell, without shared state, whether the
   * id was issued to this caller). A session found is marked as used now.
   */
  async resolve(id: string, principal: Principal): Promise<SessionLookup> {
    if (principal.kind === "person" || id.length > SESSION_ID_MAX_LENGTH) return { kind: "none" };
    const credential = principal.credential;
    const session = this.sessions.get(id);
    if (session !== undefined) {
      if (session.workspaceId !== principal.workspace.id || session.accountId !== principal.account.id) return { kind: "none" };
      if (session.credentialId !== credential.id) {
        const continued = credential.rotatedFromId === session.credentialId || (await this.ownerKeyOf(credential)) === session.ownerKey;
        // The session may have ended while the key was read.
        if (!continued || this.sessions.get(id) !== session) return { kind: "none" };
        session.credentialId = credential.id;
      }
      this.sessions.delete(id);
      this.sessions.set(id, session);
      session.lastUsedMs = Date.now();
      return { kind: "here", session };
    }
    if (this.ended.has(id)) return { kind: "none" };
    // Cheapest first: the credential itself, its rotation's predecessor, then its OAuth grant (read once per credential).
    if (this.issuedTo(id, `credential:${credential.id}`)) return { kind: "elsewhere" };
    if (credential.rotatedFromId !== null && this.issuedTo(id, `credential:${credential.rotatedFromId}`)) return { kind: "elsewhere" };
    const ownerKey = await this.ownerKeyOf(credential);
    if (ownerKey.startsWith("grant:") && this.issuedTo(id, ownerKey)) return { kind: "elsewhere" };
    return { kind: "none" };
  }

  /** Opens the session's GET stream (Server-Sent Events), closing the one it held: what it will be notified on. */
  openStream(session: McpSession): Response {
    return (session as SessionState).openStream();
  }

  /** Ends the session (DELETE, idle, owner gone): its stream ends and its subscription with it. */
  end(session: McpSession): void {
    const state = session as SessionState;
    if (this.sessions.get(state.id) !== state) return;
    this.sessions.delete(state.id);
    this.ended.add(state.id);
    if (this.ended.size > ENDED_REMEMBERED) for (const oldest of this.ended) if (this.ended.delete(oldest) && this.ended.size <= ENDED_REMEMBERED) break;
    removeFrom(this.byAccount, state.accountId, state);
    removeFrom(this.byWorkspace, state.workspaceId, state);
    state.dispose();
  }

  /** Ends every session and the inbox watch; later `initialize` requests get no session. Idempotent. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const session of [...this.sessions.values()]) this.end(session);
    this.inbox.close();
  }

  /** The limits in force (read by sessions). */
  get settings(): McpSessionLimits {
    return this.limits;
  }

  /**
   * Who owns a session the credential opens: its OAuth grant when it is an access token of one
   * (`grant:<id>`: the grant's next access token, after a refresh, is the same owner), else the
   * credential itself (`credential:<id>`). Read once per credential (a bounded cache).
   */
  private async ownerKeyOf(credential: CredentialPrincipal["credential"]): Promise<string> {
    let grantId = this.grantOf.get(credential.id);
    if (grantId === undefined) {
      grantId = await this.deps.stores.oauth.grantIdOfCredential({ workspaceId: credential.workspaceId, credentialId: credential.id });
      this.grantOf.set(credential.id, grantId);
      if (this.grantOf.size > GRANTS_REMEMBERED) for (const oldest of this.grantOf.keys()) if (this.grantOf.delete(oldest) && this.grantOf.size <= GRANTS_REMEMBERED) break;
    }
    return grantId === null ? `credential:${credential.id}` : `grant:${grantId}`;
  }

  /** A new session id: 144 random bits, a dot, and the HMAC of them and the owner key (visible ASCII, as MCP asks). */
  private issueId(ownerKey: string): string {
    const nonce = randomBytes(18).toString("base64url");
    return `${nonce}.${this.macOf(nonce, ownerKey)}`;
  }

  private issuedTo(id: string, ownerKey: string): boolean {
    const dot = id.indexOf(".");
    if (dot <= 0) return false;
    const expected = Buffer.from(this.macOf(id.slice(0, dot), ownerKey));
    const given = Buffer.from(id.slice(dot + 1));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private macOf(nonce: string, ownerKey: string): string {
    // The cursor-signing key, under its own label: a session id can never pass for a cursor.
    return createHmac("sha256", this.deps.secrets.cursorKey).update(`agentq mcp session\0${nonce}\0${ownerKey}`).digest("base64url").slice(0, 22);
  }

  /** Closes the least recently used session without a stream among `group` when it holds `max` or more; refuses when none can go. */
  private makeRoom(group: ReadonlySet<SessionState> | ReadonlyMap<string, SessionState> | undefined, max: number, limit: string): void {
    if (group === undefined || group.size < max) return;
    const members = [...group.values()];
    const idle = members.filter((s) => s.stream === null).sort((a, b) => a.lastUsedMs - b.lastUsedMs);
    const excess = members.length - max + 1;
    if (idle.length < excess) throw new DomainError("SVC_RATE_LIMITED", "Too many open MCP sessions; close one (DELETE /mcp with its Mcp-Session-Id) or retry later.", { limit, max }, { retryAfterSeconds: 60 });
    for (const s of idle.slice(0, excess)) this.end(s);
  }

  /** Closes idle sessions, and sessions whose owner is no longer active. */
  private async sweep(): Promise<void> {
    const nowMs = Date.now();
    for (const session of [...this.sessions.values()]) {
      if (session.stream === null && nowMs - session.lastUsedMs >= this.limits.idleMs) this.end(session);
    }
    // A stream outlives the requests that would each authenticate: its owner is checked here.
    for (const session of [...this.sessions.values()]) {
      if (session.stream === null || nowMs - session.checkedMs < this.limits.recheckMs) continue;
      session.checkedMs = nowMs;
      try {
        if (!(await ownerIsActive(this.deps, session))) this.end(session);
      } catch {
        // The database is away: look again next time.
      }
    }
  }
}

/** True when the session's credential is active and unexpired and its account and workspace are active. */
async function ownerIsActive(deps: CoreDeps, s: SessionState): Promise<boolean> {
  const credential = await deps.stores.credentials.findById({ workspaceId: s.workspaceId, credentialId: s.credentialId });
  if (credential === null || credential.state !== "active" || (credential.expiresAt !== null && credential.expiresAt.getTime() <= Date.now())) return false;
  const context = await deps.stores.accounts.loadPrincipalContext({ accountId: s.accountId });
  return context !== null && context.account.workspaceId === s.workspaceId && callerRefusal(context) === null;
}

function addTo(map: Map<string, Set<SessionState>>, key: string, s: SessionState): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(s);
}

function removeFrom(map: Map<string, Set<SessionState>>, key: string, s: SessionState): void {
  const set = map.get(key);
  set?.delete(s);
  if (set?.size === 0) map.delete(key);
}

class SessionState implements McpSession {
  lastUsedMs = Date.now();
  checkedMs = Date.now();
  stream: SessionStream | null = null;
  private stopWatch: (() => void) | null = null;
  private lastNotifiedMs = 0;
  private trailing: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly owner: McpSessions,
    readonly id: string,
    readonly workspaceId: string,
    readonly accountId: string,
    /** The owner's credential now (it moves to the next access token of an OAuth grant, to a rotation's successor). */
    public credentialId: string,
    /** Who owns the session across credentials: `grant:<id>` or `credential:<id>`. */
    readonly ownerKey: string,
  ) {}

  get subscribed(): boolean {
    return this.stopWatch !== null;
  }

  subscribeInbox(): void {
    if (this.stopWatch !== null) return;
    this.stopWatch = this.owner.inbox.watch({ workspaceId: this.workspaceId, recipientId: this.accountId }, () => this.inboxChanged());
  }

  unsubscribeInbox(): void {
    this.stopWatch?.();
    this.stopWatch = null;
    if (this.trailing !== null) clearTimeout(this.trailing);
    this.trailing = null;
  }

  openStream(): Response {
    this.endStream();
    let stream: SessionStream | null = null;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const keepAlive = setInterval(() => this.write(": keepalive\n\n"), this.owner.settings.keepAliveMs);
        keepAlive.unref?.();
        stream = { controller, bufferedBytes: 0, keepAlive };
        this.stream = stream;
        // Sent at once, so the client sees the stream open before anything happens.
        this.write(": agentq session stream\n\n");
      },
      pull: () => {
        if (stream !== null) stream.bufferedBytes = 0;
      },
      cancel: () => {
        // The client went away: the session stays (it may come back) until its idle timeout.
        if (stream !== null && this.stream === stream) this.dropStream();
      },
    });
    return new Response(body, {
      status: 200,
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-store, no-transform", "X-Accel-Buffering": "no", "Mcp-Session-Id": this.id },
    });
  }

  /** Ends everything the session holds. */
  dispose(): void {
    this.unsubscribeInbox();
    this.endStream();
  }

  /** A message may have become claimable: notify now, or at the end of the gap when one was just sent. */
  private inboxChanged(): void {
    if (this.stream === null || this.trailing !== null) return;
    const waitMs = this.lastNotifiedMs + this.owner.settings.notifyGapMs - Date.now();
    if (waitMs <= 0) {
      this.sendInboxUpdated();
      return;
    }
    this.trailing = setTimeout(() => {
      this.trailing = null;
      this.sendInboxUpdated();
    }, waitMs);
    this.trailing.unref?.();
  }

  private sendInboxUpdated(): void {
    if (this.stopWatch === null) return;
    this.lastNotifiedMs = Date.now();
    this.write(INBOX_UPDATED);
  }

  /** Queues `text` on the stream; a client that has left more than maxBufferedBytes unread loses its stream. */
  private write(text: string): void {
    const stream = this.stream;
    if (stream === null) return;
    const bytes = encoder.encode(text);
    stream.bufferedBytes += bytes.byteLength;
    if ((stream.controller.desiredSize ?? 0) < 0 && stream.bufferedBytes > this.owner.settings.maxBufferedBytes) {
      this.endStream();
      return;
    }
    try {
      stream.controller.enqueue(bytes);
    } catch {
      this.dropStream();
    }
  }

  private endStream(): void {
    const stream = this.stream;
    if (stream === null) return;
    this.dropStream();
    try {
      stream.controller.close();
    } catch {
      // Already closed or cancelled.
    }
  }

  private dropStream(): void {
    const stream = this.stream;
    if (stream === null) return;
    clearInterval(stream.keepAlive);
    this.stream = null;
    this.lastUsedMs = Date.now();
  }
}
