import { Type } from "@sinclair/typebox";
import { offsetPage } from "../../cursors/paged-list.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { CursorField, IdField, LimitField, Nullable, Timestamp } from "../conventions/operation-fields.ts";
import { USAGE_GROUPS, usageReport } from "./usage.ts";

// Usage (SESSION-STATE §9): what the work cost.

const UsageRowSchema = Type.Object({
  group: Type.Record(Type.String(), Type.String(), { description: "The group's values, by dimension (period: the bucket's start)." }),
  sessions: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cache_read_tokens: Type.Integer(),
  cache_write_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost_usd: Type.String({ description: "Dollars as a decimal string (\"12.345678\"), summed as integer micro-dollars." }),
  wall_seconds: Type.Integer({ description: "Of the group's distinct sessions." }),
  active_seconds: Type.Integer(),
});

const usageOp = defineSessionStateRead({
  name: "get_usage",
  summary: "What the work cost: token and cost figures reported on ping and end, summed as differences between cumulative reports inside the window (default the last 30 days), grouped by one or two of session, project, account, model, period.",
  http: { path: "/v1/usage", query: ["group_by", "period", "since", "until", "project_id", "ai_account_id", "build_session_id", "limit", "cursor"] },
  input: Type.Object({
    group_by: Type.Optional(Type.String({ maxLength: 40, description: `One or two of ${USAGE_GROUPS.join(", ")}, comma-separated (default model).` })),
    period: Type.Optional(Type.String({ description: "day (default), week or month: the buckets of group_by period (UTC)." })),
    since: Type.Optional(Type.String()),
    until: Type.Optional(Type.String()),
    project_id: Type.Optional(IdField("Only this project (a project-restricted credential: always its own).")),
    ai_account_id: Type.Optional(IdField("Only this agent's sessions.")),
    build_session_id: Type.Optional(IdField("Only this session.")),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: Type.Object({ rows: Type.Array(UsageRowSchema), totals: UsageRowSchema, window: Type.Object({ since: Timestamp(), until: Timestamp() }), group_by: Type.Array(Type.String()), next_cursor: Nullable(Type.String()) }),
  async handler(deps, ctx, input) {
    const r = await usageReport(deps, deps.stores, ctx, input);
    const page = await offsetPage(deps, ctx, { resource: "usage", filters: { group_by: r.groupBy.join(","), period: input.period ?? "day", since: r.window.since, until: r.window.until, project: input.project_id ?? null, account: input.ai_account_id ?? null, session: input.build_session_id ?? null }, limit: input.limit, cursor: input.cursor }, async (offset, limit) => r.rows.slice(offset, offset + limit + 1), (row) => row);
    return { body: { rows: page.items, totals: r.totals, window: { since: r.window.since.toISOString(), until: r.window.until.toISOString() }, group_by: r.groupBy, next_cursor: page.next_cursor } };
  },
});

/** The usage operations (SESSION-STATE §9). */
export const USAGE_OPERATIONS = [usageOp];
