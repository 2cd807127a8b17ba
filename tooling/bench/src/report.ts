/** A ratio of a figure to a reference figure of the same run. */
export interface Comparison {
  /** The id of the reference figure (e.g. "L1.send@32"). */
  ref: string;
  ratio: number;
}

/** One row of the result table. */
export interface Figure {
  /** Stable id, e.g. "S1.send@32" (the JSON key other runs are compared by). */
  id: string;
  /** What it is, for the table. */
  label: string;
  value: number;
  /** "/s", "ms", "MB", "B" (bytes) or "tools". */
  unit: string;
  /** Ratio to the PostgreSQL limit (or to the in-run reference the goal names). */
  limit?: Comparison;
  /** Ratio to pg-boss. */
  peer?: Comparison;
  /** The goal of issue 7 this figure answers, and whether this run meets it (null: not measured). */
  goal?: { text: string; met: boolean | null };
  note?: string;
}

/** Everything a run records. */
export interface RunResult {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  soak: boolean;
  machine: Record<string, string | number>;
  settings: Record<string, unknown>;
  figures: Figure[];
  notes: string[];
}

function formatValue(f: Figure): string {
  if (!Number.isFinite(f.value)) return "n/a";
  // Counts (bytes, tools) are whole numbers.
  const digits = f.unit === "B" || f.unit === "tools" ? 0 : f.unit === "ms" ? (f.value < 10 ? 2 : 1) : f.value < 100 ? 1 : 0;
  return `${f.value.toFixed(digits)} ${f.unit}`;
}

function formatComparison(c: Comparison | undefined): string {
  if (c === undefined) return "";
  return Number.isFinite(c.ratio) ? `${c.ratio.toFixed(2)} × ${c.ref}` : `n/a (${c.ref})`;
}

function formatGoal(f: Figure): string {
  if (f.goal === undefined) return "";
  const mark = f.goal.met === null ? "?" : f.goal.met ? "met" : "NOT met";
  return `${f.goal.text}: ${mark}`;
}

/** The table's rows as cells: figure, value, ratio to the limit, ratio to pg-boss, goal. */
function rows(figures: readonly Figure[]): string[][] {
  return figures.map((f) => [`${f.id}  ${f.label}`, formatValue(f), formatComparison(f.limit), formatComparison(f.peer), formatGoal(f)]);
}

const HEADER = ["figure", "value", "ratio to the limit", "ratio to pg-boss", "goal"];

/** The table as aligned plain text (what `pnpm bench` prints). */
export function renderText(figures: readonly Figure[]): string {
  const all = [HEADER, ...rows(figures)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 1 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return [line(HEADER), widths.map((w) => "-".repeat(w)).join("  "), ...rows(figures).map(line)].join("\n");
}

/** The table as GitHub markdown. */
export function renderMarkdownTable(figures: readonly Figure[]): string {
  const escape = (c: string) => c.replace(/\|/g, "\\|");
  const body = rows(figures).map((r) => `| ${r.map(escape).join(" | ")} |`);
  return [`| ${HEADER.join(" | ")} |`, "|---|---:|---|---|---|", ...body].join("\n");
}

/** The whole run as markdown: when, where, the table, the notes. */
export function renderMarkdown(run: RunResult): string {
  const machine = Object.entries(run.machine)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `# agentq benchmark, ${run.startedAt}`,
    "",
    `Mode: ${run.mode}${run.soak ? " + soak" : ""}. Machine: ${machine}.`,
    `Settings: ${JSON.stringify(run.settings)}.`,
    "",
    renderMarkdownTable(run.figures),
    "",
    ...(run.notes.length > 0 ? ["Notes:", "", ...run.notes.map((n) => `- ${n}`), ""] : []),
    ...run.figures.filter((f) => f.note !== undefined).map((f) => `- ${f.id}: ${f.note}`),
    "",
  ].join("\n");
}
