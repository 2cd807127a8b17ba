import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { base64Decode, base64Encode } from "../../encoding/base64.ts";
import vectors from "./tlog-vectors.json" with { type: "json" };
import { formatCheckpoint, logKeyName, logOrigin, parseCheckpoint } from "./checkpoint.ts";
import { ed25519NoteSigner, openNote, parseVerifierKey, signNote } from "./signed-note.ts";
import { splitStoredHashIndex, storedHashCount, storedHashIndex, storedWithLeaf, subTreeNodes, type TreeNode } from "./tree-coordinates.ts";
import { TreeFrontier } from "./tree-frontier.ts";
import { storedHashes, treeHash, type HashReader } from "./tree-head.ts";
import { EMPTY_TREE_HASH, recordHash } from "./tree-hashing.ts";
import { checkRecord, checkTree, proveRecord, proveTree } from "./tree-proofs.ts";

// Vectors computed by Go's own golang.org/x/mod/sumdb/tlog and sumdb/note
// (tooling/receipts-verifier-go/vectors prints tlog-vectors.json).

const b64 = (s: string) => base64Decode(s) as Uint8Array;
const leaf = (i: number) => utf8ToBytes(`leaf ${i}\n`);

/** A tree of n vector leaves stored the way the sealer stores it: each leaf's hashes by leaf index. */
async function storedTree(n: number): Promise<{ byLeaf: Uint8Array[][]; read: HashReader; reads: TreeNode[][] }> {
  const frontier = TreeFrontier.empty();
  const byLeaf: Uint8Array[][] = [];
  for (let i = 0; i < n; i++) byLeaf.push(frontier.append(recordHash(leaf(i))));
  const reads: TreeNode[][] = [];
  const read: HashReader = async (nodes) => {
    reads.push([...nodes]);
    return nodes.map((node) => {
      const { leafIndex, position } = storedWithLeaf(node);
      const h = byLeaf[leafIndex]?.[position];
      if (h === undefined) throw new Error("not stored");
      return h;
    });
  };
  return { byLeaf, read, reads };
}

describe("RFC 6962 tree hashing (tlog vectors)", () => {
  it("hashes the empty tree as SHA-256 of nothing", () => {
    expect(bytesToHex(EMPTY_TREE_HASH)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("matches RFC 6962's reference roots (the leaves of the certificate-transparency test data)", async () => {
    const data = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map((h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16)));
    const frontier = TreeFrontier.empty();
    const roots: string[] = [];
    for (const d of data) {
      frontier.append(recordHash(d));
      roots.push(bytesToHex(frontier.root()));
    }
    expect(roots).toEqual([
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
      "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
      "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
      "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
      "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
      "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]);
  });

  it("computes every root of the vector tree, from the frontier and from stored hashes", async () => {
    const { read } = await storedTree(vectors.roots.length);
    const frontier = TreeFrontier.empty();
    for (const [i, root] of vectors.roots.entries()) {
      frontier.append(recordHash(leaf(i)));
      expect(base64Encode(frontier.root())).toBe(root);
      expect(base64Encode(await treeHash(i + 1, read))).toBe(root);
    }
  });

  it("stores what tlog's StoredHashes stores, and numbers stored hashes as tlog does", async () => {
    const { byLeaf, read } = await storedTree(vectors.roots.length);
    for (let n = 0; n < byLeaf.length; n++) expect((await storedHashes(n, leaf(n), read)).map(base64Encode)).toEqual((byLeaf[n] as Uint8Array[]).map(base64Encode));
    expect(vectors.stored_counts).toEqual(vectors.roots.map((_, i) => storedHashCount(i + 1)));
    for (const [levelN, index] of vectors.stored_indexes as [number, number][]) {
      const level = Math.floor(levelN / 100);
      const n = levelN % 100;
      expect(storedHashIndex(level, n)).toBe(index);
      expect(splitStoredHashIndex(index)).toEqual({ level, index: n });
    }
    // Every stored hash sits with the leaf that completed it, at its level: the same dense order.
    let dense = 0;
    for (const [leafIndex, hashes] of byLeaf.entries()) {
      for (const position of hashes.keys()) {
        const node = splitStoredHashIndex(dense++);
        expect(storedWithLeaf(node)).toEqual({ leafIndex, position });
      }
    }
  });

  it("keeps arithmetic exact past 32 bits", () => {
    const big = 2 ** 40 + 5;
    expect(subTreeNodes(0, big)).toEqual([{ level: 40, index: 0 }, { level: 2, index: 2 ** 38 }, { level: 0, index: 2 ** 40 + 4 }]);
    expect(splitStoredHashIndex(storedHashIndex(3, 2 ** 35 + 1))).toEqual({ level: 3, index: 2 ** 35 + 1 });
  });
});

describe("inclusion and consistency proofs (tlog vectors)", () => {
  it("builds tlog's record proofs, and checks them as CheckRecord does", async () => {
    const { read, reads } = await storedTree(vectors.roots.length);
    for (const v of vectors.record_proofs) {
      reads.length = 0;
      const proof = await proveRecord(v.t, v.n, read);
      expect(proof.map(base64Encode)).toEqual(v.proof);
      // One read of O(log n) hashes.
      expect(reads.length).toBeLessThanOrEqual(1);
      const root = b64(vectors.roots[v.t - 1] as string);
      expect(checkRecord(proof, v.t, root, v.n, recordHash(leaf(v.n)))).toEqual({ ok: true });
      expect(checkRecord(proof, v.t, root, v.n, recordHash(leaf(v.n + 1)))).toEqual({ ok: false, fault: "proof_failed" });
      if (proof.length > 0) {
        const flipped = proof.map((h, i) => (i === 0 ? Uint8Array.from(h, (b, j) => (j === 0 ? b ^ 1 : b)) : h));
        expect(checkRecord(flipped, v.t, root, v.n, recordHash(leaf(v.n)))).toEqual({ ok: false, fault: "proof_failed" });
        expect(checkRecord(proof.slice(1), v.t, root, v.n, recordHash(leaf(v.n)))).toEqual({ ok: false, fault: "proof_failed" });
      }
    }
    expect(checkRecord([], 3, EMPTY_TREE_HASH, 3, EMPTY_TREE_HASH)).toEqual({ ok: false, fault: "invalid_inputs" });
  });

  it("builds tlog's tree proofs, and checks them as CheckTree does", async () => {
    const { read, reads } = await storedTree(vectors.roots.length);
    for (const v of vectors.tree_proofs) {
      reads.length = 0;
      const proof = await proveTree(v.t, v.n, read);
      expect(proof.map(base64Encode)).toEqual(v.proof);
      expect(reads.length).toBeLessThanOrEqual(1);
      const newRoot = b64(vectors.roots[v.t - 1] as string);
      const oldRoot = b64(vectors.roots[v.n - 1] as string);
      expect(checkTree(proof, v.t, newRoot, v.n, oldRoot)).toEqual({ ok: true });
      if (v.n < v.t) {
        expect(checkTree(proof, v.t, newRoot, v.n, b64(vectors.roots[v.n] as string))).toEqual({ ok: false, fault: "proof_failed" });
        expect(checkTree(proof, v.t, oldRoot, v.n, newRoot)).toEqual({ ok: false, fault: "proof_failed" });
      } else {
        expect(checkTree([newRoot], v.t, newRoot, v.n, oldRoot)).toEqual({ ok: false, fault: "proof_failed" });
      }
    }
    expect(checkTree([], 1, EMPTY_TREE_HASH, 0, EMPTY_TREE_HASH)).toEqual({ ok: false, fault: "invalid_inputs" });
  });
});

describe("signed notes and checkpoints (sumdb/note vectors)", () => {
  it("derives the verifier key and signs exactly as sumdb/note", () => {
    for (const v of vectors.notes) {
      const signer = ed25519NoteSigner(v.name, b64(v.seed));
      expect(signer.verifierKey).toBe(v.verifier_key);
      expect(signNote(v.text, [signer])).toBe(v.signed);
      const verifier = parseVerifierKey(v.verifier_key);
      expect(verifier).not.toBeNull();
      expect(openNote(v.signed, [verifier!])).toMatchObject({ kind: "verified", text: v.text, signatures: [{ name: v.name, keyHash: signer.keyHash }] });
    }
  });

  it("opens the example of sumdb/note's documentation", () => {
    const vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    const msg =
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    expect(openNote(msg, [parseVerifierKey(vkey)!])).toMatchObject({ kind: "verified", signatures: [{ name: "PeterNeumann", keyHash: 0xc74f20a3 }] });
    expect(openNote(msg.replace("problem is", "problem was"), [parseVerifierKey(vkey)!])).toMatchObject({ kind: "invalid_signature" });
    expect(openNote(msg, [])).toMatchObject({ kind: "unverified", unverified: [{ name: "PeterNeumann" }] });
  });

  it("refuses malformed notes and verifier keys", () => {
    const v = vectors.notes[0] as (typeof vectors.notes)[number];
    const verifier = parseVerifierKey(v.verifier_key)!;
    expect(openNote(v.text, [verifier])).toEqual({ kind: "malformed" });
    expect(openNote(v.signed.replace("\u2014", "-"), [verifier])).toEqual({ kind: "malformed" });
    expect(openNote(v.signed.replace("\n70\n", "\n7\t0\n"), [verifier])).toEqual({ kind: "malformed" });
    expect(openNote(v.signed.slice(0, -1), [verifier])).toEqual({ kind: "malformed" });
    const [name, hash, key] = v.verifier_key.split("+", 3) as [string, string, string];
    expect(parseVerifierKey(`${name}+00000000+${v.verifier_key.slice(name.length + hash.length + 2)}`)).toBeNull();
    expect(parseVerifierKey(`${name} x+${hash}+${key}`)).toBeNull();
    expect(parseVerifierKey(v.verifier_key.slice(0, -4))).toBeNull();
  });

  it("formats and reads checkpoints, with the origin and key name DESIGN §2c fixes", () => {
    expect(logKeyName("https://queue.example.com")).toBe("queue.example.com/agentq");
    expect(logOrigin("http://127.0.0.1:8080/", "01WS")).toBe("127.0.0.1:8080/agentq/01WS");
    const c = { origin: "queue.example.com/agentq/01WS", treeSize: 70, rootHash: b64(vectors.roots[69] as string) };
    const text = formatCheckpoint(c);
    expect(text).toBe(`queue.example.com/agentq/01WS\n70\n${vectors.roots[69]}\n`);
    expect(parseCheckpoint(text)).toEqual(c);
    expect(parseCheckpoint(`${text}extension\n`)).toEqual(c);
    for (const bad of ["\n70\nAAAA\n", `o\n070\n${vectors.roots[0]}\n`, `o\n-1\n${vectors.roots[0]}\n`, "o\n1\nAAAA\n", `o\n1\n${vectors.roots[0]}`, `o\n1\n${vectors.roots[0]}\n\n`]) expect(parseCheckpoint(bad)).toBeNull();
  });
});
