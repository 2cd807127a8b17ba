import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const GO_SOURCE = fileURLToPath(new URL("../../../../tooling/receipts-verifier-go/", import.meta.url));
/** Where Debian's golang-golang-x-mod-dev puts golang.org/x/mod (GOPATH mode, as docs/receipts.md builds it). */
const GOPATH = "/usr/share/gocode";

/**
 * Builds the Go verifier of receipts (tooling/receipts-verifier-go, on the Go checksum database's
 * sumdb/note and sumdb/tlog) once per source version into a temp folder, reused across runs;
 * returns the binary's path.
 * @throws when Go or golang.org/x/mod is missing (`pnpm setup:system` installs them).
 */
export function buildGoVerifier(): string {
  const source = readFileSync(join(GO_SOURCE, "main.go"));
  const dir = join(tmpdir(), `agentq-receipts-verifier-${createHash("sha256").update(source).digest("hex").slice(0, 16)}`);
  const binary = join(dir, "receipts-verifier");
  if (existsSync(binary)) return binary;
  if (spawnSync("go", ["version"]).status !== 0 || !existsSync(join(GOPATH, "src/golang.org/x/mod/sumdb/note"))) {
    throw new Error("The Go verifier needs Go and golang.org/x/mod from Debian: run `pnpm setup:system` (apt-get install golang-go golang-golang-x-mod-dev).");
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
