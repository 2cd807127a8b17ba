import {
  auditChainHash,
  auditLogKeys,
  base64Decode,
  base64Encode,
  bootstrapWorkspace,
  latestAuditCheckpoint,
  sealAuditChains,
  verifyConsistencyBundle,
  verifyMessageReceipt,
  type ConsistencyBundleView,
  type MessageReceiptView,
  type ReceiptFault,
  type ServerSecrets,
} from "@agentq/core";
import { connectMcpClient, serveOnFreePort, structured } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { buildGoVerifier } from "./testing/go-verifier.ts";
import { createLogger, deriveSecrets } from "@agentq/runtime";

// Independent verification (issue 32, DESIGN §2c Receipts): receipts, checkpoints and proofs
// the real server hands out over REST (and MCP) are checked by a Go program built here from
// Debian's golang.org/x/mod (sumdb/note verifies the signatures, sumdb/tlog's CheckRecord and
// CheckTree the proofs), by `agentq receipt verify` run as a process, as a user runs it, and by
// the TypeScript verifier in process; all three must reach the same verdict on every case.

const AGENTQ_BIN = fileURLToPath(new URL("../../cli/bin/agentq.js", import.meta.url));

/** `agentq receipt verify`'s exit code for each class the verifiers share (docs/receipts.md). */
const CLI_EXIT: Readonly<Record<"OK" | ReceiptFault, number>> = { OK: 0, unreadable: 10, checkpoint_malformed: 10, checkpoint_signature: 11, wrong_origin: 12, record_mismatch: 13, proof_failed: 14 };

describe("receipts checked by the Go checksum database's own code and by agentq receipt verify", () => {
  let db: TestSchema;
  let before: ComposedService;
  let service: ComposedService;
  let goVerifier: string;
  let scratch: string;
  const publicBaseUrl = "http://receipts.test:8443";
  const oldSecrets = deriveSecrets("the-server-secret-before-the-rotation-0123456789");
  // Only the log key rotates here (a new SVC_SECRET_KEY would also end the credentials issued before).
  const newSecrets = { ...oldSecrets, logSeed: deriveSecrets("the-server-secret-after-the-rotation-0123456789a").logSeed };
  const oldKey = auditLogKeys({ secrets: oldSecrets, publicBaseUrl }).signer.verifierKey;
  let keys: string[];

  beforeAll(async () => {
    goVerifier = buildGoVerifier();
    scratch = mkdtempSync(join(tmpdir(), "agentq-receipts-"));
    db = await createTestSchema({ max: 4 });
    const compose = (sql: postgres.Sql, secrets: ServerSecrets, previousLogKeys: string[]) =>
      composeService({ sql, secrets, publicBaseUrl, previousLogKeys, logger: createLogger("silent"), rateLimiter: "off" });
    // The same database before and after the server's secret (so its log key) was rotated.
    before = compose(db.connect({ max: 3 }), oldSecrets, []);
    service = compose(db.sql, newSecrets, [oldKey]);
  });
  afterAll(async () => {
    await before?.close();
    await service?.close();
    await db?.drop();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  let requests = 0;
  async function request(app: ComposedService, token: string | null, method: string, path: string, body?: unknown): Promise<Response> {
    return app.fetch(
      new Request(`${publicBaseUrl}${path}`, {
        method,
        headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `r-${++requests}` }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  }
  async function call(app: ComposedService, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await request(app, token, method, path, body);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }
  /** GET of a text/plain route (the checkpoint, the key document): its text. */
  async function text(app: ComposedService, token: string | null, path: string): Promise<string> {
    const res = await request(app, token, "GET", path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    return res.text();
  }

  /** A workspace with a sender and a recipient; `send` sends through REST; `receipt` is the sender's GET /v1/messages/{id}/receipt. */
  async function workspace(app: ComposedService, name: string) {
    const boot = await bootstrapWorkspace(app.deps, { workspaceName: name, email: `owner@${name}.test` });
    for (const friendly of ["sender", "recipient"]) expect((await call(app, boot.token, "POST", "/v1/ai-accounts", { friendly_name: friendly })).status).toBe(201);
    const accounts = await call(app, boot.token, "GET", "/v1/ai-accounts");
    const sender = (accounts.body.items as { id: string; friendly_name: string }[]).find((a) => a.friendly_name === "sender");
    const cred = await call(app, boot.token, "POST", "/v1/credentials", { ai_account_id: sender?.id, tier: "operational", scopes: ["send"], name: "sender-key" });
    expect(cred.status).toBe(201);
    const token = cred.body.token as string;
    return {
      id: boot.workspace_id,
      admin: boot.token,
      sender: token,
      send: async (via: ComposedService) => {
        const sent = await call(via, token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "recipient" }, template: "note" }, payload: { text: "hello" } });
        expect(sent.status).toBe(201);
        return sent.body.message_id as string;
      },
      receipt: async (messageId: string) => {
        const r = await call(service, token, "GET", `/v1/messages/${messageId}/receipt`);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body as MessageReceiptView;
      },
      /** The latest checkpoint as GET /v1/audit-log/checkpoint serves it, with its size. */
      checkpoint: async () => {
        const note = await text(service, boot.token, "/v1/audit-log/checkpoint");
        return { note, treeSize: Number(note.split("\n")[1]) };
      },
    };
  }

  type Verdict = "OK" | ReceiptFault;

  /** The Go program's verdict on a receipt or bundle, trusting `trusted`. */
  function goVerdict(kind: "receipt" | "consistency", file: string, trusted: readonly string[]): Verdict {
    const run = spawnSync(goVerifier, [...trusted.flatMap((k) => ["-key", k]), kind, file], { encoding: "utf8" });
    const out = run.stdout.trim();
    if (run.status === 0 && out.startsWith("OK ")) return "OK";
    const match = /^FAIL ([a-z_]+):/.exec(out);
    if (match === null) throw new Error(`the Go verifier failed to run (${run.status}): ${out} ${run.stderr}`);
    return match[1] as ReceiptFault;
  }

  /** The CLI's failure class for each class the verifiers share (docs/receipts.md). */
  const CLI_CLASS: Readonly<Record<ReceiptFault, string>> = { unreadable: "malformed", checkpoint_malformed: "malformed", checkpoint_signature: "signature", wrong_origin: "origin", record_mismatch: "row", proof_failed: "proof" };
  /** Cases for `agentq receipt verify`, run as processes by `cliVerdicts` in batches (one process per set of trusted keys and outcome). */
  const cliCases: { file: string; trusted: readonly string[]; expected: Verdict }[] = [];

  /**
   * Go's and the TypeScript verifier's verdicts on a case, now; the same file is queued for
   * `agentq receipt verify`, whose verdict `cliVerdicts` checks against `expected`.
   */
  function verdicts(kind: "receipt" | "consistency", value: unknown, expected: Verdict, trusted: readonly string[] = keys): { go: Verdict; ts: Verdict } {
    const file = join(scratch, `case-${++requests}.json`);
    writeFileSync(file, JSON.stringify(value));
    cliCases.push({ file, trusted, expected });
    const ts = kind === "receipt" ? verifyMessageReceipt(value, { verifierKeys: trusted }) : verifyConsistencyBundle(value, { verifierKeys: trusted });
    return { go: goVerdict(kind, file, trusted), ts: ts.ok ? "OK" : ts.fault };
  }
  const both = (v: Verdict) => ({ go: v, ts: v });

  /** `agentq --json receipt verify FILE... --key ...` run as a process (node, the CLI's bin). */
  function runCli(files: readonly string[], trusted: readonly string[]): Promise<{ code: number; lines: { file: string; verified: boolean; failure?: string }[] }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [AGENTQ_BIN, "--json", "receipt", "verify", ...files, ...trusted.flatMap((k) => ["--key", k])], { encoding: "utf8" }, (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        const lines = stdout.trimEnd().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { file: string; verified: boolean; failure?: string });
        resolve({ code, lines: lines.map((l) => (files.length === 1 ? { ...l, file: files[0] as string } : l)) });
      });
    });
  }

  /** Runs the queued cases through the CLI: each file's verdict as expected, and the exit code that of the batch's first failure. */
  async function cliVerdicts(): Promise<void> {
    const batches = new Map<string, typeof cliCases>();
    for (const c of cliCases) {
      const key = `${c.trusted.join(" ")} ${c.expected === "OK" ? "ok" : "fail"}`;
      batches.set(key, [...(batches.get(key) ?? []), c]);
    }
    await Promise.all(
      [...batches.values()].map(async (batch) => {
        const { code, lines } = await runCli(batch.map((c) => c.file), batch[0]?.trusted ?? []);
        const first = batch[0]?.expected ?? "OK";
        expect(code).toBe(CLI_EXIT[first]);
        expect(lines.map((l) => (l.verified ? "OK" : l.failure))).toEqual(batch.map((c) => (c.expected === "OK" ? "OK" : CLI_CLASS[c.expected])));
      }),
    );
  }

  /** The note with one byte of its signature flipped (after the 4-byte key hash). */
  function flipSignature(note: string): string {
    const at = note.lastIndexOf(" ") + 1;
    const sig = base64Decode(note.slice(at, -1)) as Uint8Array;
    sig[10] = (sig[10] as number) ^ 0x01;
    return `${note.slice(0, at)}${base64Encode(sig)}\n`;
  }
  /** The note with one byte of its root hash flipped (the signature left as it was). */
  function flipRoot(note: string): string {
    const lines = note.split("\n");
    const root = base64Decode(lines[2] as string) as Uint8Array;
    root[0] = (root[0] as number) ^ 0x80;
    lines[2] = base64Encode(root);
    return lines.join("\n");
  }
  function flipHash(hash: string): string {
    const bytes = base64Decode(hash) as Uint8Array;
    bytes[31] = (bytes[31] as number) ^ 0x01;
    return base64Encode(bytes);
  }

  it("accepts every receipt and consistency proof the server hands out, across a key rotation, and all three verifiers refuse each tampering", { timeout: 600_000 }, async () => {
    // Before the rotation: two workspaces, a checkpoint of each signed with the old key.
    const a = await workspace(before, "alpha");
    const b = await workspace(before, "bravo");
    const sentBefore = [await a.send(before), await a.send(before)];
    await b.send(before);
    expect(await sealAuditChains(before.deps)).toBeGreaterThan(0);
    const signedWithOldKey = await a.checkpoint();
    // After it: more traffic, sealed and signed with the new key, in two batches.
    const sentAfter = [await a.send(service), await a.send(service)];
    await sealAuditChains(service.deps);
    const middle = await a.checkpoint();
    sentAfter.push(await a.send(service));
    await sealAuditChains(service.deps);
    const latest = await a.checkpoint();
    expect(latest.treeSize).toBeGreaterThan(middle.treeSize);
    expect(middle.treeSize).toBeGreaterThan(signedWithOldKey.treeSize);
    expect(latest.note.startsWith(`receipts.test:8443/agentq/${a.id}\n${latest.treeSize}\n`)).toBe(true);
    // The verifier keys as a client gets them: the public key document, the new key first, the old one listed.
    const keyDocument = await text(service, null, "/.well-known/agentq-log-key");
    keys = keyDocument.trimEnd().split("\n");
    expect(keys).toEqual([auditLogKeys(service.deps).signer.verifierKey, oldKey]);

    // Every receipt, and every consistency proof between the checkpoints a client may hold, from the REST routes.
    const receipts: MessageReceiptView[] = [];
    for (const messageId of [...sentBefore, ...sentAfter]) receipts.push(await a.receipt(messageId));
    for (const receipt of receipts) expect(verdicts("receipt", receipt, "OK")).toEqual(both("OK"));
    const bundle = async (older: { treeSize: number; note: string }, newer: { treeSize: number; note: string }): Promise<ConsistencyBundleView> => {
      const proof = await call(service, a.admin, "GET", `/v1/audit-log/proof/consistency?from=${older.treeSize}&to=${newer.treeSize}`);
      expect(proof.status, JSON.stringify(proof.body)).toBe(200);
      return { old_checkpoint: older.note, new_checkpoint: newer.note, consistency: proof.body as ConsistencyBundleView["consistency"] };
    };
    for (const [older, newer] of [[signedWithOldKey, latest], [middle, latest], [signedWithOldKey, middle], [latest, latest]] as const) {
      expect(verdicts("consistency", await bundle(older, newer), "OK")).toEqual(both("OK"));
    }
    // The old key is trusted only while listed.
    const acrossRotation = await bundle(signedWithOldKey, latest);
    expect(verdicts("consistency", acrossRotation, "checkpoint_signature", [keys[0] as string])).toEqual(both("checkpoint_signature"));

    // The same receipt and checkpoint through the MCP tools (the SDK client over real HTTP).
    const served = await serveOnFreePort((r) => service.fetch(r));
    try {
      const mcp = await connectMcpClient(served.url, `Bearer ${a.sender}`);
      const viaMcp = structured(await mcp.callTool({ name: "get_message_receipt", arguments: { message_id: sentBefore[0] } }));
      expect(viaMcp).toEqual(receipts[0]);
      await mcp.close();
      const admin = await connectMcpClient(served.url, `Bearer ${a.admin}`);
      expect(structured(await admin.callTool({ name: "get_audit_checkpoint", arguments: {} }))).toMatchObject({ checkpoint: latest.note, tree_size: latest.treeSize, origin: `receipts.test:8443/agentq/${a.id}` });
      await admin.close();
    } finally {
      await served.close();
    }

    // Tampering: a byte of the row, of the proof, of the root, of the signature.
    const receipt = receipts[0] as MessageReceiptView;
    expect(receipt.record).toContain('"template":"note"');
    expect(verdicts("receipt", { ...receipt, record: receipt.record.replace('"template":"note"', '"template":"nove"') }, "proof_failed")).toEqual(both("proof_failed"));
    expect(receipt.inclusion.hashes.length).toBeGreaterThan(1);
    expect(verdicts("receipt", { ...receipt, inclusion: { ...receipt.inclusion, hashes: receipt.inclusion.hashes.map((h, i) => (i === 1 ? flipHash(h) : h)) } }, "proof_failed")).toEqual(both("proof_failed"));
    expect(verdicts("receipt", { ...receipt, checkpoint: flipRoot(receipt.checkpoint) }, "checkpoint_signature")).toEqual(both("checkpoint_signature"));
    expect(verdicts("receipt", { ...receipt, checkpoint: flipSignature(receipt.checkpoint) }, "checkpoint_signature")).toEqual(both("checkpoint_signature"));
    expect(verdicts("consistency", { ...acrossRotation, consistency: { ...acrossRotation.consistency, hashes: acrossRotation.consistency.hashes.map((h, i) => (i === 0 ? flipHash(h) : h)) } }, "proof_failed")).toEqual(both("proof_failed"));
    expect(verdicts("consistency", { ...acrossRotation, old_checkpoint: flipSignature(acrossRotation.old_checkpoint) }, "checkpoint_signature")).toEqual(both("checkpoint_signature"));

    // Some traffic later (a burst of sends, sealed in batches as it arrives): the checkpoint a
    // client kept is still proven to be a prefix of the new one.
    for (let burst = 0; burst < 4; burst++) {
      await Promise.all(Array.from({ length: 50 }, () => a.send(service)));
      await sealAuditChains(service.deps);
    }
    const busy = await a.checkpoint();
    expect(busy.treeSize).toBeGreaterThanOrEqual(latest.treeSize + 200);
    for (const older of [signedWithOldKey, latest]) expect(verdicts("consistency", await bundle(older, busy), "OK")).toEqual(both("OK"));

    // A checkpoint of another workspace's log, validly signed by the same key.
    const otherLog = await latestAuditCheckpoint(service.deps, { workspaceId: b.id });
    expect(verdicts("receipt", { ...receipt, checkpoint: otherLog.note }, "wrong_origin")).toEqual(both("wrong_origin"));
    expect(verdicts("consistency", { ...acrossRotation, old_checkpoint: otherLog.note }, "wrong_origin")).toEqual(both("wrong_origin"));

    // A rewritten history: an early row changed and the chain relinked from it on, the tree
    // rebuilt by the sealer and signed again. The service's own proof from the checkpoint a
    // client kept to the new one cannot hold.
    const chain = await service.deps.stores.audit.readChain({ workspaceId: a.id, afterSeq: 0, limit: 1_000 });
    const rewritten = chain.find((r) => r.seq === 3);
    expect(rewritten).toBeDefined();
    await db.sql.begin(async (tx) => {
      await tx`update audit_log set details = jsonb_set(details, '{rewritten}', 'true') where workspace_id = ${a.id} and id = ${rewritten?.id ?? ""}`;
      let prev = chain.find((r) => r.seq === 2)?.hash as string;
      for (const row of chain.filter((r) => (r.seq as number) >= 3)) {
        const fresh = row.id === rewritten?.id ? { ...row, details: { ...row.details, rewritten: true } } : row;
        const hash = auditChainHash(prev, fresh, row.seq as number);
        await tx`update audit_chain set prev_hash = ${prev}, hash = ${hash} where workspace_id = ${a.id} and seq = ${row.seq as number}`;
        prev = hash;
      }
      await tx`delete from audit_tree_hashes where workspace_id = ${a.id}`;
      await tx`delete from audit_checkpoints where workspace_id = ${a.id}`;
      await tx`insert into audit_tree_backlog (workspace_id) values (${a.id})`;
    });
    await sealAuditChains(service.deps);
    const afterRewrite = await a.checkpoint();
    expect(afterRewrite.treeSize).toBe(busy.treeSize);
    expect(afterRewrite.note).not.toBe(latest.note);
    expect(verdicts("consistency", await bundle(latest, afterRewrite), "proof_failed")).toEqual(both("proof_failed"));
    expect(verdicts("consistency", await bundle(busy, afterRewrite), "proof_failed")).toEqual(both("proof_failed"));
    expect(verdicts("consistency", await bundle(signedWithOldKey, afterRewrite), "proof_failed")).toEqual(both("proof_failed"));
    // The rewritten log is consistent with itself: only a checkpoint kept from before exposes it.
    expect(verdicts("receipt", await a.receipt(sentAfter[0] as string), "OK")).toEqual(both("OK"));

    // agentq receipt verify, as a process, on every case above: the same verdicts.
    await cliVerdicts();
  });
});
