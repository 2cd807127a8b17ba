import type { ShellResult } from "./shell-session.ts";

/** What the documentation runner offers a check: the world's values and a way to make state. */
export interface DocsWorld {
  /**
   * Values for `{{name}}` in commands: `base_url`, `workspace_id`, `admin_token` (administrative),
   * `op_token` (operational, every operational scope, account `builder`; accounts `bob` and `reviewer` exist too), `database_url`,
   * `secret_key`, `repo` (the repository's root).
   */
  bindings: Readonly<Record<string, string>>;
  /** Sends a fresh message to `builder` with `op_token` and claims it: its `message_id` and `lease_id`. */
  claimedMessage(): Promise<{ message_id: string; lease_id: string }>;
  /** Sends a fresh message to `builder` with `op_token`, left pending: its `message_id`. */
  sentMessage(): Promise<{ message_id: string }>;
  /** Sends a fresh message to `builder` with `op_token` and waits until the sealer put its send in a checkpoint (its receipt answers 200): its `message_id`. */
  sealedMessage(): Promise<{ message_id: string }>;
  /** The email-verification token (`agq_ev_...`) of the newest sign-up mail the server wrote to `address` (waits for it). */
  signUpToken(address: string): Promise<string>;
}

/** How one documented command is checked. */
export type CommandCheck =
  | {
      kind: "run";
      /** The command to run instead of the documented text (`{{name}}` from the bindings), when the text holds placeholders the standard ones do not cover. */
      as?: string;
      /** Makes the state the command needs; its values join the bindings. */
      setup?: (world: DocsWorld) => Promise<Record<string, string>>;
      /** A problem with the result, or null (default: exit 0, and a JSON answer without `error`). */
      expect?: (result: ShellResult) => string | null;
      /** Values later commands of the same block use (`{{name}}`). */
      bind?: (result: ShellResult) => Record<string, string>;
      /** Files (relative to the repository's root) the command writes, removed after the run. */
      writes?: readonly string[];
    }
  /** `pnpm start &`: the runner's own server, started as `pnpm start` before any block runs. */
  | { kind: "the-server" }
  /** A long-running process: started in the background, checked for its ready line, then stopped. */
  | { kind: "serve"; as?: string; ready: RegExp }
  /** Not run by the tests, and why. */
  | { kind: "not-run"; reason: string };

/**
 * The documented placeholders and the bindings they stand for: a reader replaces them with the
 * values their own run printed; the runner with the world's.
 */
export const STANDARD_PLACEHOLDERS: readonly (readonly [string, string])[] = [
  ["http://127.0.0.1:8080", "{{base_url}}"],
  ["agq_ad_...", "{{admin_token}}"],
  ["agq_op_...", "{{op_token}}"],
  ["WORKSPACE_ID", "{{workspace_id}}"],
  ["<message_id>", "{{message_id}}"],
  ["<lease_id>", "{{lease_id}}"],
  ["postgres://...", "{{database_url}}"],
  ["<the server's>", "{{secret_key}}"],
];

const LONG_RUNS = "runs for minutes to an hour and holds both cores (it measures speed), so pnpm test does not run it; its figures are in docs/performance.md and bench/results/";
const FAULT_RUNS = "runs for minutes, kills servers and restarts PostgreSQL; its summaries are in docs/reliability.md";

const json = (r: ShellResult): Record<string, unknown> => {
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last) as Record<string, unknown>;
};
const item0 = (r: ShellResult) => ((json(r).items as { envelope: { message_id: string }; lease: { lease_id: string } }[] | undefined) ?? [])[0];

/**
 * THE list of documented commands (every ```sh block of README.md, docs/*.md and the READMEs of
 * apps/* and packages/*), each with how it is checked. `docs-commands.test.ts` fails when a
 * documented command is missing here or an entry is no longer documented;
 * `docs-commands.process.test.ts` runs every `run`, `serve` and `the-server` entry as a reader
 * would, block by block, against a server started with `pnpm start`.
 * Keys: the command with every whitespace run made one space.
 */
export const COMMAND_CHECKS: Readonly<Record<string, CommandCheck>> = {
  // README.md: the two commands
  "pnpm install && pnpm start": { kind: "not-run", reason: "installs dependencies: .ci/run does that from a clean clone before pnpm test, and the runner starts the server with `pnpm start` itself" },
  "pnpm test": { kind: "not-run", reason: "the command that runs this check" },

  // README.md: the curl walk-through
  "pnpm start &": { kind: "the-server" },
  // docs/receipts.md: the CLI verifier
  "curl -s https://queue.example.com/.well-known/agentq-log-key > log-key.txt": { kind: "run", as: "curl -sf {{base_url}}/.well-known/agentq-log-key > log-key.txt", writes: ["log-key.txt"] },
  'curl -s -H "Authorization: Bearer $SVC_CREDENTIAL" https://queue.example.com/v1/messages/01…/receipt > receipt.json': {
    kind: "run",
    setup: (w) => w.sealedMessage(),
    as: 'curl -sf -H "Authorization: Bearer {{op_token}}" {{base_url}}/v1/messages/{{message_id}}/receipt > receipt.json',
    writes: ["receipt.json"],
  },
  "agentq receipt verify receipt.json --key log-key.txt": { kind: "run" },
  "agentq receipt verify bundle.json --key log-key.txt --origin queue.example.com/agentq/01…": {
    kind: "not-run",
    reason: "needs two checkpoints a client kept over time; apps/server/src/receipts-go-verifier.pg.test.ts runs `agentq receipt verify` as a process on consistency bundles from the real store",
  },
  "pnpm bench:receipts --rows 1000000 --requests 300": { kind: "not-run", reason: "writes and seals a million audit rows (about five minutes of both cores); its figures are in docs/receipts.md" },
  // docs/receipts.md: the Go verifier
  "cd tooling/receipts-verifier-go": { kind: "not-run", reason: "the block builds and runs the Go verifier on files a reader saved; apps/server/src/receipts-go-verifier.pg.test.ts builds the same program the same way and runs it on every case" },
  "GO111MODULE=off GOPATH=/usr/share/gocode go build -o receipts-verifier .": { kind: "not-run", reason: "built by apps/server/src/receipts-go-verifier.pg.test.ts with these settings (into a temp folder, not the source tree)" },
  './receipts-verifier -key "$(cat log-key.txt)" receipt receipt.json': { kind: "not-run", reason: "needs a receipt and the log key the routes will serve (issue 32); the receipts test runs the verifier on receipts from the real store" },
  "./receipts-verifier -key NEW_KEY -key OLD_KEY consistency bundle.json": { kind: "not-run", reason: "needs two checkpoints a client kept; the receipts test runs the verifier on consistency bundles from the real store" },
  // docs/oauth.md: the Inspector's CLI with a token from the flow
  'npx @modelcontextprotocol/inspector --cli https://agentq.example.com/mcp --transport http --header "Authorization: Bearer agq_op_..." --method tools/list': { kind: "not-run", reason: "needs an access token from a person's consent and the npm registry; oauth-mcp-client.pg.test.ts runs the same Inspector CLI (the dev dependency) with a token the flow issued" },
  "UPDATE_SCREENSHOTS=1 pnpm vitest run apps/server/src/dashboard/": { kind: "not-run", reason: "rewrites the committed screenshots of docs/dashboard.md; the same browser tests run in pnpm test without the variable" },
  "pnpm -s bootstrap --workspace acme --email ops@acme.test --json": { kind: "run", bind: (r) => ({ admin_token: String(json(r).token) }) },
  "ADMIN=agq_ad_...": { kind: "run" },
  "B=http://127.0.0.1:8080": { kind: "run" },
  'H=(-H "Content-Type: application/json")': { kind: "run" },
  'curl -s $B/v1/ai-accounts -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"friendly_name":"planner"}\'': { kind: "run", bind: (r) => ({ planner_id: String(json(r).id) }) },
  'curl -s $B/v1/ai-accounts -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"friendly_name":"builder"}\'': { kind: "run", bind: (r) => ({ builder_id: String(json(r).id) }) },
  'curl -s $B/v1/credentials -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"ai_account_id":"<planner id>","tier":"operational","scopes":["send","validate","list_recipients","list_templates","get_template"],"name":"planner@laptop"}\'': {
    kind: "run",
    as: 'curl -s $B/v1/credentials -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"ai_account_id":"{{planner_id}}","tier":"operational","scopes":["send","validate","list_recipients","list_templates","get_template"],"name":"planner@laptop"}\'',
    bind: (r) => ({ planner_token: String(json(r).token) }),
  },
  'curl -s $B/v1/credentials -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"ai_account_id":"<builder id>","tier":"operational","scopes":["get_pending","ack","nack"],"name":"builder@ci"}\'': {
    kind: "run",
    as: 'curl -s $B/v1/credentials -H "Authorization: Bearer $ADMIN" "${H[@]}" -d \'{"ai_account_id":"{{builder_id}}","tier":"operational","scopes":["get_pending","ack","nack"],"name":"builder@ci"}\'',
    bind: (r) => ({ builder_token: String(json(r).token) }),
  },
  "PLANNER=agq_op_...; BUILDER=agq_op_...": { kind: "run", as: "PLANNER={{planner_token}}; BUILDER={{builder_token}}" },
  'curl -s $B/v1/messages/send -H "Authorization: Bearer $PLANNER" "${H[@]}" -H "Idempotency-Key: order-1" -d \'{"envelope":{"recipient":{"friendly_name":"builder"},"template":"directive","priority":"high"}, "payload":{"directive_kind":"build","summary":"Build the site","instructions":"pnpm build"}}\'': {
    kind: "run",
    bind: (r) => ({ message_id: String(json(r).message_id) }),
  },
  'curl -s $B/v1/messages/get-pending -H "Authorization: Bearer $BUILDER" "${H[@]}" -d \'{"max":10,"wait":"PT20S"}\'': {
    kind: "run",
    expect: (r) => (item0(r) === undefined ? "claimed nothing" : null),
    bind: (r) => ({ lease_id: item0(r)?.lease.lease_id ?? "" }),
  },
  'curl -s $B/v1/messages/<message_id>/ack -H "Authorization: Bearer $BUILDER" "${H[@]}" -d \'{"lease_id":"<lease_id>","outcome_summary":"built"}\'': {
    kind: "run",
    expect: (r) => (json(r).state === "acknowledged" ? null : `not acknowledged: ${r.stdout}`),
  },
  'curl -s $B/v1/messages/<message_id> -H "Authorization: Bearer $PLANNER"': { kind: "run", expect: (r) => (json(r).state === "acknowledged" ? null : `state is not acknowledged: ${r.stdout}`) },

  // README.md and apps/cli/README.md: the CLI
  "cd apps/cli && pnpm link --global && cd -": { kind: "run" },
  "pnpm --filter @agentq/cli exec agentq --help": { kind: "run" },
  "(cd apps/cli && pnpm link --global)": { kind: "run" },
  "node apps/cli/bin/agentq.js --help": { kind: "run" },
  "export SVC_BASE_URL=http://127.0.0.1:8080 SVC_CREDENTIAL=agq_op_...": { kind: "run" },
  "export SVC_CREDENTIAL=agq_op_...": { kind: "run", as: "export SVC_BASE_URL={{base_url}} SVC_CREDENTIAL={{op_token}}" },
  'agentq send builder --template directive --payload \'{"directive_kind":"build","summary":"s","instructions":"i"}\'': { kind: "run" },
  'agentq send bob --template directive --payload \'{"directive_kind":"task","summary":"s","instructions":"i"}\'': { kind: "run" },
  "agentq pending --wait PT20S": { kind: "run", setup: (w) => w.sentMessage() },
  "agentq ack <message_id> --lease <lease_id> --summary done": { kind: "run", setup: (w) => w.claimedMessage() },
  "agentq ack 01J... --lease 01J... --summary done": { kind: "run", setup: (w) => w.claimedMessage(), as: "agentq ack {{message_id}} --lease {{lease_id}} --summary done" },
  "agentq nack <message_id> --lease <lease_id> --redeliver-after PT5M": { kind: "run", setup: (w) => w.claimedMessage() },
  "agentq extend <message_id> --lease <lease_id> --visibility-timeout PT300S": { kind: "run", setup: (w) => w.claimedMessage() },
  'agentq hand-off <message_id> --lease <lease_id> --to reviewer --note "needs a second pair of eyes"': { kind: "run", setup: (w) => w.claimedMessage() },
  "agentq send builder --template note --payload '{\"text\":\"which branch?\"}' --reply-to <message_id>": { kind: "run", setup: (w) => w.sentMessage() },
  // The thread of a message just sent to builder: its first message is claimable at once, so the poll does not wait.
  "agentq pending --thread <thread_id> --wait PT20S": { kind: "run", setup: (w) => w.sentMessage(), as: "agentq pending --thread {{message_id}} --wait PT20S" },
  "agentq thread <thread_id>": { kind: "run", setup: (w) => w.sentMessage(), as: "agentq thread {{message_id}}" },
  "agentq messages list --state pending": { kind: "run" },
  "agentq messages show <message_id>": { kind: "run" },
  "agentq --json pending | jq .": { kind: "run", setup: (w) => w.sentMessage() },
  "agentq --json pending | jq -r '.items[].envelope.message_id'": { kind: "run", setup: (w) => w.sentMessage() },

  // docs/guard-rails.md
  "pnpm admin workspace plan WORKSPACE_ID free": { kind: "run" },
  "pnpm admin workspace plan WORKSPACE_ID standard --set messages_per_month=5000000 --set credential_requests_per_minute=1200": { kind: "run" },
  'pnpm admin workspace plan WORKSPACE_ID enterprise --set ai_accounts=unlimited --reason "contract 42"': { kind: "run", expect: (r) => (r.code === 0 && json(r).plan === "enterprise" ? null : `exit ${r.code}: ${r.stderr}`) },
  "SVC_CREDENTIAL=agq_ad_... pnpm audit:export --out chain.jsonl": { kind: "run", writes: ["chain.jsonl"] },
  "pnpm audit:verify chain.jsonl": { kind: "run", writes: ["chain.jsonl"] },
  'pnpm admin workspace freeze WORKSPACE_ID --reason "abuse report 7"': { kind: "run" },
  "pnpm admin workspace unfreeze WORKSPACE_ID": { kind: "run" },

  // docs/performance.md
  "pnpm bench": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --quick": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --soak": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --soak --soak-messages 30000": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --baseline": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --only S2 --profile": { kind: "not-run", reason: LONG_RUNS },
  "pnpm bench --quick --only S1,S4 --server-dir /path/to/other/checkout/apps/server": { kind: "not-run", reason: LONG_RUNS },
  "AGENTQ_BENCH_LEVELS=1 AGENTQ_BENCH_LEVEL_MS=8000 pnpm bench --quick --only S1 --profile": { kind: "not-run", reason: LONG_RUNS },

  // docs/reliability.md
  "pnpm test:faults": { kind: "not-run", reason: FAULT_RUNS },
  "pnpm test:faults --minutes 1 --seed 42": { kind: "not-run", reason: FAULT_RUNS },
  "pnpm test:faults --out /tmp/run": { kind: "not-run", reason: FAULT_RUNS },
  "pnpm test:faults --server-dir /path/to/other/checkout/apps/server": { kind: "not-run", reason: `${FAULT_RUNS}; it also needs a second checkout` },

  // docs/webhooks.md
  "DATABASE_URL=postgres://... SVC_SECRET_KEY=<the server's> pnpm --filter @agentq/dispatcher start": { kind: "serve", ready: /"dispatcher running"/ },

  // packages/postgres/README.md
  "pnpm --filter @agentq/postgres db:generate": { kind: "run", expect: (r) => (r.code === 0 && /No schema changes/i.test(r.stdout + r.stderr) ? null : `the schema and the committed migrations differ (exit ${r.code}):\n${r.stdout}${r.stderr}`) },
  "pnpm vitest run --project postgres": { kind: "not-run", reason: "runs a part of pnpm test itself (the postgres project of the same vitest run)" },
  // docs/people.md: sign-up and its mailed link, the session cookie on the administrative routes, the origin check, sign-out and sign-in (B= is listed above)
  "curl -s $B/v1/auth/sign-up -H \"Content-Type: application/json\" -d '{\"email\":\"ada@example.test\",\"password\":\"correct horse battery staple\",\"workspace_name\":\"Ada Labs\"}'": {
    kind: "run",
    expect: (r) => (json(r).verification === "sent" ? null : `not asked: ${r.stdout}`),
  },
  "curl -s -c jar.txt $B/v1/auth/verify-email -H \"Content-Type: application/json\" -d '{\"token\":\"agq_ev_...\"}'": {
    kind: "run",
    // The token a reader copies from the mail: here read from the .eml file the server wrote.
    as: "curl -s -c jar.txt $B/v1/auth/verify-email -H \"Content-Type: application/json\" -d '{\"token\":\"{{signup_token}}\"}'",
    setup: async (world) => ({ signup_token: await world.signUpToken("ada@example.test") }),
    expect: (r) => (json(r).workspace !== undefined && r.stdout.includes('"role":"owner"') ? null : `not signed up: ${r.stdout}`),
    writes: ["jar.txt"],
  },
  "curl -s -b jar.txt $B/v1/me": { kind: "run", expect: (r) => (json(r).kind === "person" ? null : `not a person: ${r.stdout}`) },
  "curl -s -b jar.txt $B/v1/ai-accounts -H \"Origin: $B\" -H \"Content-Type: application/json\" -d '{\"friendly_name\":\"researcher\"}'": { kind: "run", expect: (r) => (json(r).friendly_name === "researcher" ? null : `not created: ${r.stdout}`) },
  "curl -s -b jar.txt $B/v1/ai-accounts -H \"Content-Type: application/json\" -d '{\"friendly_name\":\"intruder\"}'": {
    kind: "run",
    expect: (r) => ((json(r).error as { code?: string } | undefined)?.code === "SVC_CSRF_REJECTED" ? null : `not refused as SVC_CSRF_REJECTED: ${r.stdout}`),
  },
  "curl -s -b jar.txt \"$B/v1/audit-log?limit=5\"": { kind: "run" },
  "curl -s -b jar.txt -c jar.txt -X POST $B/v1/auth/sign-out -H \"Origin: $B\"": { kind: "run", expect: (r) => (r.code === 0 && r.stdout.trim() === "" ? null : `exit ${r.code}: ${r.stdout}`), writes: ["jar.txt"] },
  "curl -s -c jar.txt $B/v1/auth/sign-in -H \"Content-Type: application/json\" -d '{\"email\":\"ada@example.test\",\"password\":\"correct horse battery staple\"}'": {
    kind: "run",
    expect: (r) => (json(r).mfa_required === false ? null : `not signed in: ${r.stdout}`),
    writes: ["jar.txt"],
  },
  // docs/people.md: password reset and the people of a workspace (issue 13, slice B2)
  "curl -s $B/v1/auth/password-reset -H \"Content-Type: application/json\" -d '{\"email\":\"ada@example.test\"}'": {
    kind: "run",
    expect: (r) => (typeof json(r).message === "string" ? null : `not accepted: ${r.stdout}`),
  },
  "curl -s $B/v1/auth/password-reset/confirm -H \"Content-Type: application/json\" -d '{\"token\":\"agq_pr_...\",\"password\":\"a new and longer passphrase\"}'": {
    kind: "not-run",
    reason: "needs the token of the mail the reset request wrote; apps/server/src/password-reset.process.test.ts runs this request with the token read from the server's .eml file, and people-admin.pg.test.ts with one received over SMTP",
  },
  "curl -s -b jar.txt $B/v1/people -H \"Origin: $B\" -H \"Content-Type: application/json\" -d '{\"email\":\"bo@example.test\",\"role\":\"admin\"}'": {
    kind: "run",
    expect: (r) => ((json(r).invitation as { mailed?: boolean } | undefined)?.mailed === true ? null : `not invited and mailed: ${r.stdout}`),
  },
  "curl -s -b jar.txt $B/v1/people": { kind: "run", expect: (r) => (Array.isArray(json(r).items) && r.stdout.includes("bo@example.test") ? null : `the invited person is not listed: ${r.stdout}`) },
  'pnpm -s bootstrap --workspace beta --email owner@beta.test --password "a long and quiet river" --json': { kind: "run", expect: (r) => (r.code === 0 && typeof json(r).token === "string" ? null : `exit ${r.code}: ${r.stderr}`) },
  // docs/session-state.md: the curl walk-through and the CLI (every command runs; B and export SVC_BASE_URL are listed above)
  "H=(-H \"Content-Type: application/json\" -H \"Authorization: Bearer agq_op_...\")": { kind: "run" },
  "P=$(curl -s $B/v1/projects \"${H[@]}\" -d '{\"name\":\"Site rebuild\"}' | jq -r .id)": { kind: "run" },
  "S=$(curl -s \"$B/v1/build-sessions\" \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"title\\\":\\\"Day one\\\",\\\"goal\\\":\\\"new build pipeline\\\"}\" | jq -r .session.id)": { kind: "run" },
  "curl -s \"$B/v1/build-sessions/$S/ping\" \"${H[@]}\" -d '{\"focus\":\"choosing a bundler\"}'": { kind: "run" },
  "D=$(curl -s \"$B/v1/decision-log\" \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"title\\\":\\\"Bundler\\\",\\\"decision_md\\\":\\\"Use esbuild.\\\",\\\"rationale_md\\\":\\\"Fast, one binary.\\\",\\\"tags\\\":[\\\"build\\\"]}\" | jq -r .id)": { kind: "run" },
  "curl -s \"$B/v1/decision-log/$D/correct\" \"${H[@]}\" -d '{\"decision_md\":\"Use esbuild with the metafile on.\",\"rationale_md\":\"We need bundle-size reports.\"}'": { kind: "run" },
  "I=$(curl -s \"$B/v1/backlog\" \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"title\\\":\\\"CSS not minified\\\",\\\"kind\\\":\\\"bug\\\"}\" | jq -r .id)": { kind: "run" },
  "curl -s \"$B/v1/backlog/$I/triage\" \"${H[@]}\" -d '{\"decision\":\"accept\",\"priority\":1}'": { kind: "run" },
  "curl -s \"$B/v1/backlog/$I/closing-notes\" \"${H[@]}\" -d '{\"outcome\":\"resolved\",\"commit_sha\":\"4f2a9c1\",\"notes_md\":\"minify in the css step\"}'": { kind: "run" },
  "curl -s \"$B/v1/build-sessions/$S/prepend-lead\" \"${H[@]}\" -d '{\"text\":\"Next: wire the metafile into CI\"}'": { kind: "run" },
  "curl -s \"$B/v1/build-sessions/$S/end\" \"${H[@]}\" -d '{\"summary_md\":\"Bundler chosen, CSS bug fixed.\",\"learnings\":[\"esbuild does not minify CSS by default\"]}'": { kind: "run" },
  "curl -s \"$B/v1/build-sessions/$S/continuation\" \"${H[@]}\" -d '{\"title\":\"Day two\"}'": { kind: "run" },
  "curl -s \"$B/v1/decision-log/search?project_id=$P&q=esbuild\" \"${H[@]}\"": { kind: "run" },
  "node apps/cli/bin/agentq.js project create --name \"Hooks demo\"": { kind: "run" },
  "export AGENTQ_SESSION_ID=$(node apps/cli/bin/agentq.js --json session start --title \"Day one\" | jq -r .session.id)": { kind: "run" },
  "node apps/cli/bin/agentq.js session ping --focus \"wiring hooks\"": { kind: "run" },
  "node apps/cli/bin/agentq.js decide --title \"Ping cadence\" --decision \"Ping on every tool call.\" --why \"Cheap, and liveness stays exact.\" --tag hooks": { kind: "run" },
  "node apps/cli/bin/agentq.js backlog add --title \"Exit hook does not fire on Ctrl-C\" --kind bug --priority 1": { kind: "run" },
  "node apps/cli/bin/agentq.js backlog list --status untriaged,open": { kind: "run" },
  "node apps/cli/bin/agentq.js session lead \"Check the exit hook first\"": { kind: "run" },
  "node apps/cli/bin/agentq.js session end --summary \"Hooks wired\" --learning \"exit hooks may not run on SIGINT\"": { kind: "run" },
  // docs/notices.md: the notifier's walk-through (B is listed above) and the operator's commands
  "curl -s $B/v1/notices/intake | jq -c '.kinds | keys'": { kind: "run", expect: (r) => (r.code === 0 && r.stdout.trim() === '["dmca","dsa"]' ? null : `exit ${r.code}: ${r.stdout}`) },
  'R=$(curl -s $B/v1/notices -H "Content-Type: application/json" -d \'{"kind":"dsa","category":"scams_and_fraud","explanation":"The message asks for payment to a fake bank account.","locations":[{"type":"message","id":"<message_id>"}],"notifier":{"name":"Nora Notifier","email":"nora@example.org"},"good_faith_statement":true}\')': { kind: "run", setup: (w) => w.sentMessage() },
  'N=$(echo "$R" | jq -r .notice.id) T=$(echo "$R" | jq -r .status_token)': { kind: "run" },
  "curl -s $B/v1/notices/$N": { kind: "run", expect: (r) => (Object.keys(json(r)).sort().join() === "id,kind,received_at,state,updated_at" ? null : `not the public view: ${r.stdout}`) },
  'curl -s $B/v1/notices/$N -H "Notice-Token: $T"': { kind: "run", expect: (r) => ((json(r).submission as { kind?: string } | undefined)?.kind === "dsa" ? null : `not the notifier's view: ${r.stdout}`) },
  'curl -s $B/v1/notices/$N/supplement -H "Notice-Token: $T" -H "Content-Type: application/json" -d \'{"text":"It arrived on 20 November."}\'': { kind: "run" },
  "pnpm -s admin notices list --state received": { kind: "run" },
  "pnpm -s admin notices show NOTICE_ID": { kind: "run", as: "pnpm -s admin notices show {{notice_id}}", setup: async (w) => ({ notice_id: await submitDocsNotice(w) }) },
  "pnpm -s admin notices review NOTICE_ID": { kind: "run", as: "pnpm -s admin notices review {{notice_id}}", expect: (r) => (json(r).state === "under_review" ? null : `exit ${r.code}: ${r.stdout}${r.stderr}`) },
  'pnpm -s admin notices request-info NOTICE_ID --message "Which sentence asks for the payment?"': { kind: "run", as: 'pnpm -s admin notices request-info {{notice_id}} --message "Which sentence asks for the payment?"' },
  'pnpm -s admin notices decide NOTICE_ID --action withhold_message --reason "A request for payment to a fraudulent account (criminal law)."': {
    kind: "run",
    as: 'pnpm -s admin notices decide {{notice_id}} --action withhold_message --reason "A request for payment to a fraudulent account (criminal law)."',
    expect: (r) => (json(r).state === "action_taken" ? null : `exit ${r.code}: ${r.stdout}${r.stderr}`),
  },
  "pnpm -s admin notices report --from 2026-01-01 --to 2027-01-01": { kind: "run", as: "pnpm -s admin notices report --from 2000-01-01 --to 2999-01-01", expect: (r) => (typeof json(r).received === "number" && Number(json(r).received) >= 1 ? null : `exit ${r.code}: ${r.stdout}${r.stderr}`) },
  'pnpm -s admin notices restore NOTICE_ID --reason "The complaint shows the text is a quotation in a news report."': { kind: "not-run", reason: "needs a contested notice, and a counter-notice needs the owner's signed-in session with step-up (issue 13); apps/server/src/notices.process.test.ts restores through the deadline job and the core tests through this step" },
  'pnpm -s admin notices decide NOTICE_ID --uphold --reason "The claimant filed suit." --court-action "Case 1:26-cv-01234 (D. Del.)"': { kind: "not-run", reason: "needs a contested notice, and a counter-notice needs the owner's signed-in session with step-up (issue 13); packages/core/src/notices/notices.test.ts upholds with a court action" },
  // docs/session-state.md: the learning loop with curl (B and H are listed above)
  "P=$(curl -s $B/v1/projects \"${H[@]}\" -d '{\"name\":\"Queue service\"}' | jq -r .id)": { kind: "run" },
  "S1=$(curl -s $B/v1/build-sessions \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"title\\\":\\\"Monday\\\"}\" | jq -r .session.id)": { kind: "run" },
  "curl -s $B/v1/build-sessions/$S1/end \"${H[@]}\" -d '{\"learnings\":[\"Never modify an applied migration under `migrations/**`; add a new one.\"]}'": { kind: "run" },
  "S2=$(curl -s $B/v1/build-sessions \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"title\\\":\\\"Tuesday\\\"}\" | jq -r .session.id)": { kind: "run" },
  "curl -s $B/v1/build-sessions/$S2/end \"${H[@]}\" -d '{\"learnings\":[\"Do not modify applied migrations under `migrations/**`: add a new one.\"]}'": { kind: "run" },
  "C=$(curl -s $B/v1/lesson-candidates/detect \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\"}\" | jq -r '.created[0].id')": { kind: "run" },
  "L=$(curl -s $B/v1/lesson-candidates/$C/promote \"${H[@]}\" -d '{\"slug\":\"migrations-append-only\"}' | jq -r .lesson.id)": { kind: "run" },
  "curl -s $B/v1/rules/derive \"${H[@]}\" -d \"{\\\"lesson_id\\\":\\\"$L\\\",\\\"level\\\":\\\"must\\\"}\"": { kind: "run", expect: (r) => (/"status":"active"/.test(r.stdout) && /"migrations\/\*\*"/.test(r.stdout) ? null : `no active rule on migrations/**: ${r.stdout}`) },
  "curl -s $B/v1/rules/applicable \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"paths\\\":[\\\"migrations/0007_users.sql\\\"],\\\"operations\\\":[\\\"modify\\\"]}\"": { kind: "run", expect: (r) => (/"slug":"migrations-append-only"/.test(r.stdout) ? null : `the rule does not apply to modifying a migration: ${r.stdout}`) },
  "curl -s $B/v1/rules/applicable \"${H[@]}\" -d \"{\\\"project_id\\\":\\\"$P\\\",\\\"paths\\\":[\\\"migrations/0008_orders.sql\\\"],\\\"operations\\\":[\\\"create\\\"]}\"": { kind: "run", expect: (r) => (/"rules":\[\]/.test(r.stdout) ? null : `a rule applies to creating a migration: ${r.stdout}`) },
  // docs/session-state.md: usage, the markdown import and the CLI of lessons, rules and usage (B, H and the export are listed above)
  "U=$(curl -s $B/v1/build-sessions \"${H[@]}\" -d '{\"title\":\"Costly day\"}' | jq -r .session.id)": { kind: "run" },
  "curl -s $B/v1/build-sessions/$U/ping \"${H[@]}\" -d '{\"usage\":[{\"model\":\"claude-opus\",\"input_tokens\":12000,\"output_tokens\":900,\"cost_micro_usd\":247500}]}'": { kind: "run" },
  "curl -s $B/v1/build-sessions/$U/end \"${H[@]}\" -d '{\"usage\":[{\"model\":\"claude-opus\",\"input_tokens\":30000,\"output_tokens\":2100,\"cost_micro_usd\":607500}]}'": { kind: "run" },
  "curl -s \"$B/v1/usage?group_by=model\" \"${H[@]}\"": { kind: "run", expect: (r) => (/"cost_usd":"0.607500"/.test(r.stdout) ? null : `the usage of the documented session is not summed: ${r.stdout}`) },
  "printf '## P1\\n- [ ] Retry webhooks with jitter #webhooks\\n Backoff alone bunches retries.\\n- [x] Fix the login redirect #bug\\n' > /tmp/BACKLOG.md": { kind: "run", writes: [] },
  "node apps/cli/bin/agentq.js import /tmp/BACKLOG.md --parser backlog-checklist": { kind: "run" },
  "node apps/cli/bin/agentq.js import /tmp/BACKLOG.md --parser backlog-checklist --commit": { kind: "run" },
  "node apps/cli/bin/agentq.js lessons add --title \"Tabs in Makefiles\" --body \"Do: indent \\`Makefile\\` recipes with tabs.\"": { kind: "run" },
  "node apps/cli/bin/agentq.js lessons list": { kind: "run" },
  "node apps/cli/bin/agentq.js rules applicable --path Makefile --path src/app.ts --op modify": { kind: "run" },
  "node apps/cli/bin/agentq.js usage --group-by model": { kind: "run" },
};

/** Files a DSA notice naming a fresh message of the docs world, over HTTP as a notifier does; its id. */
async function submitDocsNotice(w: DocsWorld): Promise<string> {
  const { message_id } = await w.sentMessage();
  const res = await fetch(`${w.bindings.base_url}/v1/notices`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ kind: "dsa", category: "scams_and_fraud", explanation: "A fake invoice.", locations: [{ type: "message", id: message_id }], notifier: { name: "Docs", email: "docs@example.org" }, good_faith_statement: true }),
  });
  const body = (await res.json()) as { notice?: { id: string } };
  if (res.status !== 201 || body.notice === undefined) throw new Error(`POST /v1/notices: ${res.status}`);
  return body.notice.id;
}
