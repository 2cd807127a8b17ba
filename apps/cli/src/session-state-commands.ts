import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { CliError } from "./cli-error.ts";
import { collect, PROJECT_OPTION, SESSION_OPTION } from "./cli-options.ts";
import type { CliIo } from "./cli-io.ts";
import type { OperationRequest } from "./service-client.ts";

// Session-state commands (SESSION-STATE.md): small enough to call from a coding agent's hooks
// (session start on launch, ping on each tool call, end on exit), each a thin call of one
// catalogue operation. The session of `session ping|end|lead|continue` and `decide` comes from
// --session, else AGENTQ_SESSION_ID.

type Json = Record<string, unknown>;

/** How a command prints: `print(request, render)` calls the service and writes JSON or `render(body)`. */
export type PrintCall = (req: OperationRequest, render: (body: unknown) => string) => Promise<void>;

/** A renderer of a JSON object body. */
const jsonRender = (f: (body: Json) => string) => (body: unknown): string => f(body as Json);


function sessionOf(flag: string | undefined, env: CliIo["env"], required: boolean): string | undefined {
  const id = flag ?? env["AGENTQ_SESSION_ID"]?.trim();
  if (required && (id === undefined || id === "")) throw CliError.local("CLI_USAGE", "Name the build session with --session or AGENTQ_SESSION_ID.");
  return id === "" ? undefined : id;
}

function parsePriority(value: string): number {
  if (!/^[0-4]$/.test(value)) throw CliError.local("CLI_USAGE", "--priority must be 0 (highest) to 4.");
  return Number(value);
}

const line = (s: Json) => `${s.id as string} ${s.state as string}${s.liveness ? ` (${s.liveness as string})` : ""} "${s.title as string}" pings=${s.ping_count as number} active=${s.active_seconds as number}s\n`;

/** `session start`: the session, then the briefing. */
function renderStarted(body: Json): string {
  const out = [`session ${line(body.session as Json)}`];
  const b = body.briefing as Json | null;
  if (b !== null) {
    const prev = b.previous_session as Json | null;
    if (prev === null) out.push("no previous session in this project\n");
    else {
      out.push(`previous session ${prev.id as string} (${prev.state as string}${prev.end_reason ? `, ${prev.end_reason as string}` : ""}) "${prev.title as string}"\n`);
      for (const l of prev.lead_lines as Json[]) out.push(`  lead: ${l.text as string}\n`);
      if (prev.summary_md) out.push(`  summary: ${(prev.summary_md as string).split("\n")[0] ?? ""}\n`);
      const cs = prev.current_state as Json;
      if (cs.focus) out.push(`  focus: ${cs.focus as string}\n`);
      for (const s of cs.next_steps as string[]) out.push(`  next: ${s}\n`);
      for (const s of cs.blockers as string[]) out.push(`  blocker: ${s}\n`);
    }
    for (const i of b.ready_backlog as Json[]) out.push(`ready #${i.number as number} P${i.priority as number} ${i.id as string} ${i.title as string}\n`);
    out.push(`stale backlog items: ${b.stale_backlog_count as number}\n`);
  }
  return out.join("");
}

const renderDecision = (d: Json) => `decision #${d.number as number} ${d.id as string} ${d.kind as string} "${d.title as string}"${d.supersedes_id ? ` supersedes ${d.supersedes_id as string}` : ""}\n`;
const renderItem = (i: Json) => `#${i.number as number} ${i.id as string} ${i.status as string} P${i.priority as number} ${i.kind as string} "${i.title as string}"${i.stale ? " (stale)" : ""}\n`;

/** Adds `project`, `session`, `decide` and `backlog` to the program. */
export function registerSessionStateCommands(program: Command, io: CliIo, printBody: PrintCall): void {
  const print = (req: OperationRequest, render: (body: Json) => string) => printBody(req, jsonRender(render));
  const project = program.command("project").description("session-state projects");
  project
    .command("create")
    .description("create a project (the first one becomes the workspace's default)")
    .requiredOption("--name <name>", "project name")
    .option("--slug <slug>", "slug (default: derived from the name)")
    .option("--description <text>", "description")
    .option("--default", "make it the default project")
    .action(async (o: { name: string; slug?: string; description?: string; default?: boolean }) => {
      await print({ operation: "create_project", input: { name: o.name, slug: o.slug, description: o.description, make_default: o.default }, idempotencyKey: randomUUID() }, (p: Json) => `project ${p.id as string} ${p.slug as string}${p.is_default ? " (default)" : ""}\n`);
    });

  const session = program.command("session").description("build sessions: start with a briefing, ping, lead lines, end, continue");
  /** A subcommand on one's own build session: --session, else AGENTQ_SESSION_ID. */
  const ownSession = (name: string, description: string) => session.command(name).description(description).option(...SESSION_OPTION);
  session
    .command("start")
    .description("start a build session and print the briefing (where the last session stopped, ready backlog)")
    .requiredOption("--title <title>", "what this session is")
    .option("--goal <text>", "the goal")
    .option(...PROJECT_OPTION)
    .option("--client <program:model>", "the program and model the agent runs in, e.g. claude-code:opus")
    .option("--no-briefing", "leave the briefing out")
    .action(async (o: { title: string; goal?: string; project?: string; client?: string; briefing: boolean }) => {
      const [programName, model] = (o.client ?? "").split(":");
      const client = o.client === undefined ? undefined : { program: programName ?? "", model: model ?? "unknown" };
      await print({ operation: "start_build_session", input: { title: o.title, goal: o.goal, project_id: o.project, client, briefing: o.briefing ? undefined : "false" }, idempotencyKey: randomUUID() }, renderStarted);
    });
  ownSession("ping", "tell the service the session is alive (counts active time)")
    .option("--focus <text>", "what is being worked on now")
    .action(async (o: { session?: string; focus?: string }) => {
      await print({ operation: "ping_build_session", input: { session_id: sessionOf(o.session, io.env, true), focus: o.focus } }, (s: Json) => line(s));
    });
  ownSession("lead", "push a line the next session reads first")
    .argument("<text>", "the line (up to 300 characters)")
    .action(async (text: string, o: { session?: string }) => {
      await print({ operation: "prepend_build_session_lead", input: { session_id: sessionOf(o.session, io.env, true), text } }, (s: Json) => `lead lines of ${s.id as string}:\n${(s.lead_lines as Json[]).map((l) => `  ${l.text as string}\n`).join("")}`);
    });
  ownSession("end", "end the session with a summary and learnings")
    .option("--summary <markdown>", "what the session did")
    .option("--learning <text>", "something learned (repeatable)", collect)
    .option("--abandoned", "end it as abandoned instead of completed")
    .action(async (o: { session?: string; summary?: string; learning?: string[]; abandoned?: boolean }) => {
      await print({ operation: "end_build_session", input: { session_id: sessionOf(o.session, io.env, true), summary_md: o.summary, learnings: o.learning, end_reason: o.abandoned ? "abandoned" : undefined } }, (s: Json) => `ended ${line(s)}`);
    });
  ownSession("continue", "continue the session in a new one (carries the current state and open PRs)")
    .option("--title <title>", "title of the new session (default: the same)")
    .action(async (o: { session?: string; title?: string }) => {
      await print({ operation: "continue_build_session", input: { session_id: sessionOf(o.session, io.env, true), title: o.title }, idempotencyKey: randomUUID() }, (s: Json) => `session ${line(s)}`);
    });

  program
    .command("decide")
    .description("record a decision in the project's decision log (or correct one with --correct)")
    .requiredOption("--decision <markdown>", "what was decided")
    .option("--title <title>", "title (required unless --correct)")
    .option("--why <markdown>", "the rationale (required with --correct: why it changed)")
    .option("--context <markdown>", "the situation")
    .option("--tag <tag>", "tag (repeatable)", collect)
    .option("--file <path>", "file path or glob it is about (repeatable)", collect)
    .option(...PROJECT_OPTION)
    .option("--session <id>", "the build session (default AGENTQ_SESSION_ID, else your active session)")
    .option("--correct <decision_id>", "record a correction superseding this entry (the chain's tip)")
    .action(async (o: { decision: string; title?: string; why?: string; context?: string; tag?: string[]; file?: string[]; project?: string; session?: string; correct?: string }) => {
      const common = { decision_md: o.decision, rationale_md: o.why, context_md: o.context, tags: o.tag, files: o.file, build_session_id: sessionOf(o.session, io.env, false) };
      if (o.correct !== undefined) {
        if (o.why === undefined) throw CliError.local("CLI_USAGE", "--why is required with --correct (why the decision changed).");
        await print({ operation: "correct_decision", input: { ...common, decision_id: o.correct, title: o.title }, idempotencyKey: randomUUID() }, renderDecision);
        return;
      }
      if (o.title === undefined) throw CliError.local("CLI_USAGE", "--title is required to record a decision.");
      await print({ operation: "record_decision", input: { ...common, title: o.title, project_id: o.project }, idempotencyKey: randomUUID() }, renderDecision);
    });

  const backlog = program.command("backlog").description("the project's backlog");
  backlog
    .command("add")
    .description("file a backlog item (untriaged, or open with --open)")
    .requiredOption("--title <title>", "title")
    .option("--description <markdown>", "what and why")
    .option("--kind <kind>", "bug | feature | task | chore | spike (default task)")
    .option("--priority <n>", "0 (highest) to 4 (default 2)", parsePriority)
    .option("--label <label>", "label (repeatable)", collect)
    .option("--open", "skip triage: file it as open")
    .option(...PROJECT_OPTION)
    .option("--session <id>", "the build session it was found in (default AGENTQ_SESSION_ID, else your active session)")
    .action(async (o: { title: string; description?: string; kind?: string; priority?: number; label?: string[]; open?: boolean; project?: string; session?: string }) => {
      await print(
        { operation: "create_backlog_item", input: { title: o.title, description_md: o.description, kind: o.kind, priority: o.priority, labels: o.label, skip_triage: o.open, project_id: o.project, build_session_id: sessionOf(o.session, io.env, false) }, idempotencyKey: randomUUID() },
        renderItem,
      );
    });
  backlog
    .command("list")
    .description("list backlog items (by priority, then age)")
    .option("--status <list>", "comma-separated statuses, e.g. untriaged,open")
    .option("--ready", "only open, unassigned items")
    .option("--q <words>", "words to find")
    .option("--project <project_id>", "project")
    .option("--limit <n>", "page size (default 50, at most 100)")
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (o: { status?: string; ready?: boolean; q?: string; project?: string; limit?: string; cursor?: string }) => {
      await print({ operation: "search_backlog", input: { status: o.status, ready: o.ready ? "true" : undefined, q: o.q, project_id: o.project, limit: o.limit, cursor: o.cursor } }, (body: Json) => {
        const items = body.items as Json[];
        return items.length === 0 ? "no backlog items\n" : items.map(renderItem).join("");
      });
    });
  backlog
    .command("close")
    .description("close an item: --resolved with --pr, --commit or --notes; --dismissed with --reason; or add --notes to a closed one")
    .argument("<backlog_item_id>", "the item")
    .option("--resolved", "close it as resolved")
    .option("--dismissed", "close it as dismissed")
    .option("--pr <url>", "the PR that resolved it")
    .option("--commit <sha>", "the commit that resolved it")
    .option("--notes <markdown>", "closing notes")
    .option("--reason <text>", "why it is dismissed")
    .action(async (id: string, o: { resolved?: boolean; dismissed?: boolean; pr?: string; commit?: string; notes?: string; reason?: string }) => {
      if (o.resolved && o.dismissed) throw CliError.local("CLI_USAGE", "Give --resolved or --dismissed, not both.");
      const outcome = o.resolved ? "resolved" : o.dismissed ? "dismissed" : undefined;
      await print({ operation: "close_backlog_item", input: { backlog_item_id: id, outcome, pr_url: o.pr, commit_sha: o.commit, notes_md: o.notes, reason: o.reason } }, renderItem);
    });
}
