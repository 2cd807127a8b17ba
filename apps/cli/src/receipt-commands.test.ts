import { auditLogKeys, base64Decode, base64Encode, ed25519NoteSigner, sealAuditChains } from "@agentq/core";
import { callOperation, createMessagingScenario } from "@agentq/core/testing";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit-codes.ts";
import { run } from "./run.ts";

// `agentq receipt verify` in process: every kind of file, every failure class with its exit
// code, and the trust rule (given keys win over embedded ones).
describe("agentq receipt verify", () => {
  let dir: string;
  let receipt: Record<string, any>;
  let bundle: Record<string, any>;
  let exportLines: string[];
  let keys: string[];
  let otherKey: string;
  let otherCheckpoint: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentq-receipt-verify-"));
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const messageId = await s.send();
    await s.send();
    await sealAuditChains(deps);
    const older = (await callOperation(deps, s.admin, "get_audit_checkpoint", {})).body as { checkpoint: string; tree_size: number };
    await s.send();
    await s.claim();
    await sealAuditChains(deps);
    receipt = (await callOperation(deps, s.alice, "get_message_receipt", { message_id: messageId })).body as Record<string, any>;
    const newer = (await callOperation(deps, s.admin, "get_audit_checkpoint", {})).body as { checkpoint: string; tree_size: number };
    const consistency = (await callOperation(deps, s.admin, "get_audit_consistency_proof", { from: older.tree_size })).body;
    bundle = { old_checkpoint: older.checkpoint, new_checkpoint: newer.checkpoint, consistency };
    exportLines = ((await callOperation(deps, s.admin, "export_audit_chain", { limit: 100 })).body as { items: unknown[] }).items.map((i) => JSON.stringify(i));
    keys = auditLogKeys(deps).verifierKeys;
    // Another workspace of the same server: its checkpoint is validly signed by the same key.
    const other = await createMessagingScenario();
    await other.send();
    await sealAuditChains(other.world.deps);
    otherCheckpoint = ((await callOperation(other.world.deps, other.admin, "get_audit_checkpoint", {})).body as { checkpoint: string }).checkpoint;
    // A key of the same name that did not sign (a forger's, or a key from before a rotation).
    otherKey = ed25519NoteSigner((keys[0] as string).split("+")[0] as string, new Uint8Array(32).fill(7)).verifierKey;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let files = 0;
  async function verify(content: unknown, args: string[] = [], json = true): Promise<{ code: number; out: string; err: string; body: Record<string, any> }> {
    const file = join(dir, `f-${++files}`);
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
    let out = "";
    let err = "";
    const code = await run([...(json ? ["--json"] : []), "receipt", "verify", file, ...args], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {} });
    return { code, out, err, body: json && out.startsWith("{") ? (JSON.parse(out) as Record<string, any>) : {} };
  }
  const keyArgs = () => keys.flatMap((k) => ["--key", k]);
  function flipLastHashByte(hash: string): string {
    const bytes = base64Decode(hash) as Uint8Array;
    bytes[31] = (bytes[31] as number) ^ 1;
    return base64Encode(bytes);
  }

  it("verifies a receipt, a bundle, a checkpoint and an export (exit 0), and says whose keys it trusted", async () => {
    expect(await verify(receipt, keyArgs())).toMatchObject({ code: EXIT.ok, body: { verified: true, kind: "receipt", keys: "given", message_id: receipt.message_id } });
    const embedded = await verify(receipt);
    expect(embedded).toMatchObject({ code: EXIT.ok, body: { verified: true, keys: "embedded" } });
    expect(embedded.err).toContain("--key");
    expect(await verify(bundle, keyArgs())).toMatchObject({ code: EXIT.ok, body: { kind: "consistency", from: bundle.consistency.from, tree_size: bundle.consistency.to } });
    expect(await verify(bundle.new_checkpoint, keyArgs())).toMatchObject({ code: EXIT.ok, body: { kind: "checkpoint" } });
    expect(await verify(`${exportLines.join("\n")}\n`)).toMatchObject({ code: EXIT.ok, body: { kind: "export", rows: exportLines.length } });
    // A key document file (as /.well-known/agentq-log-key serves it) works as --key too.
    const keyFile = join(dir, "log-key.txt");
    writeFileSync(keyFile, keys.map((k) => `${k}\n`).join(""));
    expect((await verify(receipt, ["--key", keyFile])).code).toBe(EXIT.ok);
    expect((await verify(receipt, ["--key", keyFile], false)).out).toMatch(/^OK receipt: /);
  });

  it("exits with one code per failure class", async () => {
    // malformed
    expect((await verify("{ not json")).code).toBe(EXIT.verifyMalformed);
    expect((await verify({ hello: "world" })).code).toBe(EXIT.verifyMalformed);
    expect((await verify({ ...receipt, inclusion: { ...receipt.inclusion, hashes: ["x"] } }, keyArgs())).body).toMatchObject({ failure: "malformed", fault: "unreadable" });
    expect((await verify({ ...receipt, checkpoint: "no signature\n" }, keyArgs())).code).toBe(EXIT.verifyMalformed);
    // signature: a flipped signature byte, or a key that did not sign (given keys win over embedded ones)
    const note = receipt.checkpoint as string;
    const at = note.lastIndexOf(" ") + 1;
    const sig = base64Decode(note.slice(at, -1)) as Uint8Array;
    sig[10] = (sig[10] as number) ^ 1;
    expect((await verify({ ...receipt, checkpoint: `${note.slice(0, at)}${base64Encode(sig)}\n` }, keyArgs())).code).toBe(EXIT.verifySignature);
    expect((await verify(receipt, ["--key", otherKey])).code).toBe(EXIT.verifySignature);
    // origin: another workspace's checkpoint, or not the --origin asked for
    expect((await verify({ ...receipt, checkpoint: otherCheckpoint }, keyArgs())).code).toBe(EXIT.verifyOrigin);
    expect((await verify(receipt, [...keyArgs(), "--origin", "elsewhere.test/agentq/01JZZZZZZZZZZZZZZZZZZZZZZZ"])).code).toBe(EXIT.verifyOrigin);
    // row: the record of another message, a changed export row
    expect((await verify({ ...receipt, message_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }, keyArgs())).code).toBe(EXIT.verifyRow);
    const changed = exportLines.map((l, i) => (i === 1 ? JSON.stringify({ ...(JSON.parse(l) as object), details: { forged: true } }) : l));
    expect(await verify(changed.join("\n"))).toMatchObject({ code: EXIT.verifyRow, body: { verified: false, line: 2, reason: "changed" } });
    // proof: a flipped byte of the row, of a proof hash, of a consistency hash
    expect((await verify({ ...receipt, record: (receipt.record as string).replace('"message.sent"', '"message.sent" ') }, keyArgs())).code).toBe(EXIT.verifyProof);
    expect((await verify({ ...receipt, inclusion: { ...receipt.inclusion, hashes: (receipt.inclusion.hashes as string[]).map((h, i) => (i === 0 ? flipLastHashByte(h) : h)) } }, keyArgs())).code).toBe(EXIT.verifyProof);
    expect((await verify({ ...bundle, consistency: { ...bundle.consistency, hashes: (bundle.consistency.hashes as string[]).map((h, i) => (i === 0 ? flipLastHashByte(h) : h)) } }, keyArgs())).code).toBe(EXIT.verifyProof);
    // several files: one line each, the exit code of the first failure
    const ok = join(dir, "ok.json");
    const forged = join(dir, "forged.json");
    const foreign = join(dir, "foreign.json");
    writeFileSync(ok, JSON.stringify(receipt));
    writeFileSync(forged, JSON.stringify({ ...receipt, message_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }));
    writeFileSync(foreign, JSON.stringify({ ...receipt, checkpoint: otherCheckpoint }));
    let out = "";
    const code = await run(["--json", "receipt", "verify", ok, forged, foreign, ...keyArgs()], { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true }, env: {} });
    expect(code).toBe(EXIT.verifyRow);
    expect(out.trimEnd().split("\n").map((l) => JSON.parse(l) as { file: string; verified: boolean; failure?: string })).toEqual([
      expect.objectContaining({ file: ok, verified: true }),
      expect.objectContaining({ file: forged, failure: "row" }),
      expect.objectContaining({ file: foreign, failure: "origin" }),
    ]);
    // usage: a signed file with no key anywhere, an unreadable file, a bad --key
    expect((await verify(bundle)).code).toBe(EXIT.usage);
    expect((await verify(receipt, ["--key", join(dir, "missing.txt")])).code).toBe(EXIT.usage);
  });
});
