import {
  auditChainHash,
  auditLogKeys,
  base64Decode,
  base64Encode,
  bootstrapWorkspace,
  latestAuditCheckpoint,
  messageReceipt,
  proveAuditConsistency,
  sealAuditChains,
  verifyConsistencyBundle,
  verifyMessageReceipt,
  type ConsistencyBundleView,
  type MessageReceiptView,
  type ReceiptFault,
  type ServerSecrets,
} from "@agentq/core";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, deriveSecrets } from "@agentq/runtime";

// Independent verification (issue 32, DESIGN §2c Receipts): receipts and checkpoints the real
// core and PostgreSQL store hand out are checked by a Go program built here from Debian's
// golang.org/x/mod (sumdb/note verifies the signatures, sumdb/tlog's CheckRecord and CheckTree
// the proofs), and by the TypeScript verifier; both must reach the same verdict on every case.

const GO_SOURCE = fileURLToPath(new URL("../../../tooling/receipts-verifier-go/", import.meta.url));
const GOPATH = "/usr/share/gocode";

/** Builds the Go verifier once per source version into a temp folder (reused across runs). */
function buildGoVerifier(): string {
  const source = readFileSync(join(GO_SOURCE, "main.go"));
  const dir = join(tmpdir(), `agentq-receipts-verifier-${createHash("sha256").update(source).digest("hex").slice(0, 16)}`);
  const binary = join(dir, "receipts-verifier");
  if (existsSync(binary)) return binary;
  if (spawnSync("go", ["version"]).status !== 0 || !existsSync(join(GOPATH, "src/golang.org/x/mod/sumdb/note"))) {
    throw new Error("The receipts test needs Go and golang.org/x/mod from Debian: run `pnpm setup:system` (apt-get install golang-go golang-golang-x-mod-dev).");
  }
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}`;
  execFileSync("go", ["build", "-o", partial, "."], {
    cwd: GO_SOURCE,
    env: { ...process.env, GO111MODULE: "off", GOPATH, GOCACHE: join(tmpdir(), "agentq-go-build-cache"), GOFLAGS: "" },
    stdio: "pipe",
  });
  execFileSync("mv", [partial, binary]);
  return binary;
}

describe("receipts checked by the Go checksum database's own code", () => {
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
    keys = auditLogKeys(service.deps).verifierKeys;
  });
  afterAll(async () => {
    await before?.close();
    await service?.close();
    await db?.drop();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  let requests = 0;
  async function call(app: ComposedService, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const res = await app.fetch(
      new Request(`${publicBaseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `r-${++requests}` }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  /** A workspace with a sender and a recipient; `send` sends through REST and returns the message id. */
  async function workspace(app: ComposedService, name: string): Promise<{ id: string; send: (app: ComposedService) => Promise<string> }> {
    const boot = await bootstrapWorkspace(app.deps, { workspaceName: name, email: `owner@${name}.test` });
    for (const friendly of ["sender", "recipient"]) expect((await call(app, boot.token, "POST", "/v1/ai-accounts", { friendly_name: friendly })).status).toBe(201);
    const accounts = await call(app, boot.token, "GET", "/v1/ai-accounts");
    const sender = (accounts.body.items as { id: string; friendly_name: string }[]).find((a) => a.friendly_name === "sender");
    const cred = await call(app, boot.token, "POST", "/v1/credentials", { ai_account_id: sender?.id, tier: "operational", scopes: ["send"], name: "sender-key" });
    expect(cred.status).toBe(201);
    const token = cred.body.token as string;
    return {
      id: boot.workspace_id,
      send: async (via) => {
        const sent = await call(via, token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "recipient" }, template: "note" }, payload: { text: "hello" } });
        expect(sent.status).toBe(201);
        return sent.body.message_id as string;
      },
    };
  }

  type Verdict = "OK" | ReceiptFault;

  /** The Go program's verdict on a receipt or bundle, trusting `trusted`. */
  function goVerdict(kind: "receipt" | "consistency", value: unknown, trusted: readonly string[]): Verdict {
    const file = join(scratch, `case-${++requests}.json`);
    writeFileSync(file, JSON.stringify(value));
    const run = spawnSync(goVerifier, [...trusted.flatMap((k) => ["-key", k]), kind, file], { encoding: "utf8" });
    const out = run.stdout.trim();
    if (run.status === 0 && out.startsWith("OK ")) return "OK";
    const match = /^FAIL ([a-z_]+):/.exec(out);
    if (match === null) throw new Error(`the Go verifier failed to run (${run.status}): ${out} ${run.stderr}`);
    return match[1] as ReceiptFault;
  }

  /** Both verifiers' verdicts; the test expects them equal and equal to the expected one. */
  function verdicts(kind: "receipt" | "consistency", value: unknown, trusted: readonly string[] = keys): { go: Verdict; ts: Verdict } {
    const ts = kind === "receipt" ? verifyMessageReceipt(value, { verifierKeys: trusted }) : verifyConsistencyBundle(value, { verifierKeys: trusted });
    return { go: goVerdict(kind, value, trusted), ts: ts.ok ? "OK" : ts.fault };
  }
  const both = (v: Verdict) => ({ go: v, ts: v });

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

  it("accepts every receipt and consistency proof the service hands out, across a key rotation, and both verifiers refuse each tampering alike", async () => {
    // Before the rotation: two workspaces, a checkpoint of each signed with the old key.
    const a = await workspace(before, "alpha");
    const b = await workspace(before, "bravo");
    const sentBefore = [await a.send(before), await a.send(before)];
    await b.send(before);
    expect(await sealAuditChains(before.deps)).toBeGreaterThan(0);
    const signedWithOldKey = await latestAuditCheckpoint(service.deps, { workspaceId: a.id });
    // After it: more traffic, sealed and signed with the new key, in two batches.
    const sentAfter = [await a.send(service), await a.send(service)];
    await sealAuditChains(service.deps);
    const middle = await latestAuditCheckpoint(service.deps, { workspaceId: a.id });
    sentAfter.push(await a.send(service));
    await sealAuditChains(service.deps);
    const latest = await latestAuditCheckpoint(service.deps, { workspaceId: a.id });
    expect(latest.treeSize).toBeGreaterThan(middle.treeSize);
    expect(middle.treeSize).toBeGreaterThan(signedWithOldKey.treeSize);
    expect(latest.note.startsWith(`receipts.test:8443/agentq/${a.id}\n${latest.treeSize}\n`)).toBe(true);

    // Every receipt, and every consistency proof between the checkpoints a client may hold.
    const receipts: MessageReceiptView[] = [];
    for (const messageId of [...sentBefore, ...sentAfter]) receipts.push(await messageReceipt(service.deps, { workspaceId: a.id, messageId }));
    for (const receipt of receipts) expect(verdicts("receipt", receipt)).toEqual(both("OK"));
    const bundle = async (older: { treeSize: number; note: string }, newer: { treeSize: number; note: string }): Promise<ConsistencyBundleView> => ({
      old_checkpoint: older.note,
      new_checkpoint: newer.note,
      consistency: await proveAuditConsistency(service.deps, { workspaceId: a.id, from: older.treeSize, to: newer.treeSize }),
    });
    for (const [older, newer] of [[signedWithOldKey, latest], [middle, latest], [signedWithOldKey, middle], [latest, latest]] as const) {
      expect(verdicts("consistency", await bundle(older, newer))).toEqual(both("OK"));
    }
    // The old key is trusted only while listed.
    const acrossRotation = await bundle(signedWithOldKey, latest);
    expect(verdicts("consistency", acrossRotation, [keys[0] as string])).toEqual(both("checkpoint_signature"));

    // Tampering: a byte of the row, of the proof, of the root, of the signature.
    const receipt = receipts[0] as MessageReceiptView;
    expect(receipt.record).toContain('"template":"note"');
    expect(verdicts("receipt", { ...receipt, record: receipt.record.replace('"template":"note"', '"template":"nove"') })).toEqual(both("proof_failed"));
    expect(receipt.inclusion.hashes.length).toBeGreaterThan(1);
    expect(verdicts("receipt", { ...receipt, inclusion: { ...receipt.inclusion, hashes: receipt.inclusion.hashes.map((h, i) => (i === 1 ? flipHash(h) : h)) } })).toEqual(both("proof_failed"));
    expect(verdicts("receipt", { ...receipt, checkpoint: flipRoot(receipt.checkpoint) })).toEqual(both("checkpoint_signature"));
    expect(verdicts("receipt", { ...receipt, checkpoint: flipSignature(receipt.checkpoint) })).toEqual(both("checkpoint_signature"));
    expect(verdicts("consistency", { ...acrossRotation, consistency: { ...acrossRotation.consistency, hashes: acrossRotation.consistency.hashes.map((h, i) => (i === 0 ? flipHash(h) : h)) } })).toEqual(both("proof_failed"));
    expect(verdicts("consistency", { ...acrossRotation, old_checkpoint: flipSignature(acrossRotation.old_checkpoint) })).toEqual(both("checkpoint_signature"));

    // A checkpoint of another workspace's log, validly signed by the same key.
    const otherLog = await latestAuditCheckpoint(service.deps, { workspaceId: b.id });
    expect(verdicts("receipt", { ...receipt, checkpoint: otherLog.note })).toEqual(both("wrong_origin"));
    expect(verdicts("consistency", { ...acrossRotation, old_checkpoint: otherLog.note })).toEqual(both("wrong_origin"));

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
    const afterRewrite = await latestAuditCheckpoint(service.deps, { workspaceId: a.id });
    expect(afterRewrite.treeSize).toBe(latest.treeSize);
    expect(afterRewrite.rootHash).not.toEqual(latest.rootHash);
    expect(verdicts("consistency", await bundle(latest, afterRewrite))).toEqual(both("proof_failed"));
    expect(verdicts("consistency", await bundle(signedWithOldKey, afterRewrite))).toEqual(both("proof_failed"));
    // The rewritten log is consistent with itself: only a checkpoint kept from before exposes it.
    expect(verdicts("receipt", await messageReceipt(service.deps, { workspaceId: a.id, messageId: sentAfter[0] as string }))).toEqual(both("OK"));
  });
});
