import { Type } from "@sinclair/typebox";
import { defineReadOperation } from "../operation.ts";
import { getWorkspaceStats, STATS_WINDOWS } from "./minute-series.ts";

const administrative = { kind: "credential" as const, tier: "administrative" as const, scope: null };
const Timestamp = (description: string) => Type.String({ format: "date-time", description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

const getWorkspaceStatsOp = defineReadOperation({
  name: "get_workspace_stats",
  summary: "Read the workspace's minute series (sent, acknowledged, dead-lettered, pending depth, oldest pending age) over the last hour or day, or one recipient's (ai_account_id). Administrative.",
  http: { path: "/v1/workspaces/me/stats", query: ["window", "ai_account_id"] },
  auth: administrative,
  input: Type.Object({
    window: Type.Optional(Type.Union(STATS_WINDOWS.map((w) => Type.Literal(w)), { description: "PT1H (the last hour, default) or P1D (the last day)." })),
    ai_account_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "One AI account of the workspace as recipient: messages sent to it, acknowledged by it, dead-lettered from its queue, and what waits for it. 404 when no such account." }),
    ),
  }),
  output: Type.Object({
    window: Type.Union(STATS_WINDOWS.map((w) => Type.Literal(w))),
    ai_account_id: Type.Union([Type.String(), Type.Null()], { description: "The recipient whose series this is, or null for the whole workspace." }),
    from: Timestamp("Start of the first minute."),
    to: Timestamp("End of the last minute (the current minute's start)."),
    minutes: Type.Array(
      Type.Object({
        minute: Timestamp("The minute's start."),
        sent: Count("Messages sent during the minute."),
        acknowledged: Count("Messages acknowledged during the minute."),
        dead_lettered: Count("Messages dead-lettered during the minute."),
        pending: Count("Messages pending at the end of the minute."),
        oldest_pending_age_seconds: Count("Age of the oldest pending message then, in seconds (0 when none)."),
      }),
      { description: "One entry per minute of the window, oldest first." },
    ),
  }),
  handler: async (deps, ctx, input) => ({ body: await getWorkspaceStats(deps, ctx, input) }),
});

/** The telemetry operations of the catalogue (DESIGN §2c Telemetry). */
export const TELEMETRY_OPERATIONS = [getWorkspaceStatsOp] as const;
