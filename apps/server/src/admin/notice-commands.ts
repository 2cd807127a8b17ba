import { DAY_MS, decideNotice, findNoticeForOperator, listNoticesForOperator, malformed, NOTICE_ACTIONS, NOTICE_STATES, noticeListLine, noticeOperatorView, noticeReport, requestNoticeInformation, restoreNotice, reviewNotice, upholdNotice, type NoticeStepOutcome } from "@agentq/core";
import type { PgDeps } from "@agentq/postgres";
import { Command, Option } from "commander";
import type { RunAction } from "./workspace-commands.ts";

const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};

/**
 * What a step prints: the notice's id, its state, what the step decided and the mails it sent. A
 * mail that could not be handed over leaves the step made: it is named on stderr (no address).
 */
function stepLine(outcome: NoticeStepOutcome): Record<string, unknown> {
  const n = outcome.notice;
  for (const m of outcome.mails.filter((x) => x.outcome === "failed")) process.stderr.write(`warning: the ${m.purpose.replace(/_/g, " ")} mail to the ${m.to} could not be sent (see docs/mail.md); the step is made.\n`);
  return {
    notice_id: n.id,
    state: n.state,
    affected_workspace_id: n.affectedWorkspaceId,
    ...(n.decision === null ? {} : { decision: { outcome: n.decision.outcome, action: n.decision.action } }),
    ...(n.measures.length === 0 ? {} : { measures: n.measures.map((m) => ({ type: m.type, item_id: m.itemId, lifted_at: m.liftedAt?.toISOString() ?? null })) }),
    mails: outcome.mails,
  };
}

/** Runs `work` against the database and prints what it returns as one JSON line (exit code 0). */
function printResult(run: RunAction, work: (deps: PgDeps) => Promise<unknown>): void {
  run(async (deps) => {
    print(await work(deps));
    return 0;
  });
}

/** A date (YYYY-MM-DD, UTC midnight) or an ISO timestamp. @throws DomainError SVC_MALFORMED_REQUEST. */
function parseInstant(text: string, field: string): Date {
  const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text);
  if (Number.isNaN(at.getTime())) throw malformed(`${field} must be a date (YYYY-MM-DD) or an ISO timestamp.`, { field });
  return at;
}

/**
 * `pnpm admin notices ...`: the operator's handling of DSA and DMCA notices (docs/notices.md).
 * - `list [--state S] [--limit N]`: newest first, one JSON line each.
 * - `show NOTICE_ID`: everything, the notifier's contact details and the history included.
 * - `review NOTICE_ID`: take it up (received or needs_information -> under_review); resolves its locations.
 * - `request-info NOTICE_ID --message TEXT`: ask the notifier for more (needs_information).
 * - `decide NOTICE_ID --action withhold_message|freeze_account|freeze_workspace|none --reason TEXT [--dismiss]`;
 *   on a contested notice `decide NOTICE_ID --uphold --reason TEXT [--court-action REF]`.
 * - `restore NOTICE_ID --reason TEXT`: lift the measures of a contested notice (restored).
 * - `report [--from DATE] [--to DATE]`: counts by kind and category and the median time to decision (default: the last 30 days).
 * Each step prints one JSON line; a refused step prints `CODE: message` and exits 1.
 */
export function noticesCommand(run: RunAction): Command {
  const notices = new Command("notices").description("handle DSA and DMCA notices");
  notices
    .command("list")
    .description("list notices, newest first (one JSON line each)")
    .addOption(new Option("--state <state>", "only notices in this state").choices(NOTICE_STATES))
    .option("--limit <n>", "at most this many (1-1000)", "100")
    .action((opts: { state?: string; limit: string }) =>
      run(async (deps) => {
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw malformed("--limit must be an integer from 1 to 1000.", { field: "limit" });
        for (const n of await listNoticesForOperator(deps, { state: opts.state ?? null, limit, after: null })) print(noticeListLine(n));
        return 0;
      }),
    );
  notices
    .command("show <notice_id>")
    .description("show a notice whole: submission, contact details, items, decision, measures, history")
    .action((noticeId: string) => printResult(run, async (deps) => noticeOperatorView(await findNoticeForOperator(deps, noticeId))));
  notices
    .command("review <notice_id>")
    .description("take a notice up (under_review) and resolve its locations")
    .action((noticeId: string) => printResult(run, async (deps) => stepLine(await reviewNotice(deps, { noticeId }))));
  notices
    .command("request-info <notice_id>")
    .description("ask the notifier for more information (needs_information)")
    .requiredOption("--message <text>", "what the notifier should add")
    .action((noticeId: string, opts: { message: string }) => printResult(run, async (deps) => stepLine(await requestNoticeInformation(deps, { noticeId, message: opts.message }))));
  notices
    .command("decide <notice_id>")
    .description("decide a notice under review (--action), or uphold a contested one (--uphold)")
    .addOption(new Option("--action <action>", "the measure").choices(NOTICE_ACTIONS))
    .requiredOption("--reason <text>", "the facts and grounds (the statement of reasons)")
    .option("--dismiss", "with --action none: dismiss the notice as manifestly unfounded")
    .option("--uphold", "keep the measure of a contested notice")
    .option("--court-action <reference>", "with --uphold: the court action the notifier reported (no automatic restoration)")
    .action((noticeId: string, opts: { action?: string; reason: string; dismiss?: boolean; uphold?: boolean; courtAction?: string }) =>
      run(async (deps) => {
        if (opts.uphold === true) {
          if (opts.action !== undefined || opts.dismiss === true) throw malformed("--uphold takes no --action or --dismiss.", { field: "uphold" });
          print(stepLine(await upholdNotice(deps, { noticeId, reason: opts.reason, courtAction: opts.courtAction ?? null })));
          return 0;
        }
        if (opts.courtAction !== undefined) throw malformed("--court-action goes with --uphold.", { field: "court_action" });
        if (opts.action === undefined) throw malformed("decide needs --action (or --uphold for a contested notice).", { field: "action" });
        print(stepLine(await decideNotice(deps, { noticeId, action: opts.action, reason: opts.reason, dismiss: opts.dismiss === true })));
        return 0;
      }),
    );
  notices
    .command("restore <notice_id>")
    .description("lift the measures of a contested notice (restored)")
    .requiredOption("--reason <text>", "why")
    .action((noticeId: string, opts: { reason: string }) => printResult(run, async (deps) => stepLine(await restoreNotice(deps, { noticeId, reason: opts.reason }))));
  notices
    .command("report")
    .description("counts by kind and category, states, and the median time to decision of the notices received in a period")
    .option("--from <date>", "start of the period (YYYY-MM-DD or ISO timestamp); default 30 days before --to")
    .option("--to <date>", "end of the period, exclusive; default now")
    .action((opts: { from?: string; to?: string }) =>
      printResult(run, async (deps) => {
        const to = opts.to === undefined ? deps.clock.now() : parseInstant(opts.to, "to");
        const from = opts.from === undefined ? new Date(to.getTime() - 30 * DAY_MS) : parseInstant(opts.from, "from");
        return noticeReport(deps, { from, to });
      }),
    );
  return notices;
}
