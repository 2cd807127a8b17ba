/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { RULE_LEVELS, RULE_STATUSES } from "@agentq/core";
import { DataTable } from "../components/data-table.tsx";
import { Facts, type Fact } from "../components/facts.tsx";
import { choicesOf } from "../components/filter-form.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import type { Page, RuleTriggersWire, RuleWire } from "../wire.ts";
import { AgentsWrite, LearningFilters, MarkdownText } from "./learning-parts.tsx";
import type { ProjectWire } from "./projects-page.tsx";

/** The rule statuses a filter offers: the API's default (active) first, and "any". */
export const RULE_CHOICES = [...choicesOf(RULE_STATUSES), { value: "any", label: "any" }];

/** A rule's populated trigger dimensions, in words ("always" for an always-apply rule). */
export function triggerSummary(rule: Pick<RuleWire, "always_apply" | "triggers">): string {
  if (rule.always_apply) return "always";
  const t = rule.triggers;
  const parts = [t.paths.length > 0 ? `${t.paths.length} path${t.paths.length === 1 ? "" : "s"}` : null, t.operations.length > 0 ? t.operations.join("/") : null, t.languages.length > 0 ? t.languages.join(", ") : null, t.code_patterns.length > 0 ? `${t.code_patterns.length} pattern${t.code_patterns.length === 1 ? "" : "s"}` : null, Object.keys(t.project_attributes).length > 0 ? "project attributes" : null];
  return parts.filter((p) => p !== null).join(" · ");
}

/** A project's rules by slug, filtered by status (active by default) and level. */
export function RulesPage(props: { projects: ProjectWire[]; project: ProjectWire; rules: Page<RuleWire>; query: Record<string, string | undefined> }) {
  const status = props.query.status ?? "active";
  const level = props.query.level ?? "";
  return (
    <>
      <h1>Rules</h1>
      <p>What the agents of {props.project.name} are told before a change: rules derived from lessons, with the triggers that select them.</p>
      <LearningFilters
        path="/rules"
        projects={props.projects}
        projectId={props.project.id}
        selects={[
          { name: "status", label: "Status", choices: RULE_CHOICES, value: status },
          { name: "level", label: "Level", choices: choicesOf(RULE_LEVELS, ""), value: level },
        ]}
      />
      <DataTable
        label="Rules"
        rows={props.rules.items}
        empty={{ title: status === "any" ? "No rules in this project yet." : `No ${status} rules in this project${level === "" ? "" : ` at level ${level}`}.`, children: <p>An agent derives a rule from an active lesson (derive_rule).</p> }}
        rowAttrs={(r) => ({ "data-rule": r.slug, "data-rule-status": r.status })}
        columns={[
          { head: "Title", cell: (r) => <a href={`/rules/${r.id}`}>{r.title}</a> },
          { head: "Slug", cell: (r) => <code>{r.slug}</code> },
          { head: "Level", cell: (r) => r.level },
          { head: "Applies to", cell: triggerSummary },
          { head: "Status", cell: (r) => <StateBadge state={r.status} /> },
          { head: "Created", cell: (r) => <LocalTime at={r.created_at} /> },
        ]}
      />
      <Pagination path="/rules" query={props.query} nextCursor={props.rules.next_cursor} />
      <AgentsWrite tools="derive_rule, enrich_rule, archive_rule" />
    </>
  );
}

/** A populated trigger dimension as a fact (none for an empty one). */
function triggerFact(term: string, items: string[]): Fact | null {
  if (items.length === 0) return null;
  return {
    term,
    value: (
      <ul class="plain">
        {items.map((i) => (
          <li>
            <code>{i}</code>
          </li>
        ))}
      </ul>
    ),
  };
}

function Triggers(props: { triggers: RuleTriggersWire; alwaysApply: boolean }) {
  const t = props.triggers;
  const attributes = Object.entries(t.project_attributes).map(([key, values]) => `${key} = ${values.join(" | ")}`);
  return (
    <section class="panel" aria-label="Triggers">
      <h2>When it applies</h2>
      {props.alwaysApply ? <p>To every change (always apply).</p> : <p>To a change that matches every dimension below.</p>}
      <Facts
        facts={[
          triggerFact("Paths", t.paths),
          triggerFact("Operations", t.operations),
          triggerFact("Languages", t.languages),
          triggerFact("Code patterns", t.code_patterns),
          triggerFact("Project attributes", attributes),
        ]}
      />
    </section>
  );
}

/** One rule: its text, level, triggers, where it came from and, when archived, why. */
export function RulePage(props: { rule: RuleWire }) {
  const r = props.rule;
  return (
    <>
      <PageHeading title={r.title} back={{ href: `/rules?project=${r.project_id}`, label: "Rules" }} />
      <section class="panel">
        <Facts
          facts={[
            { term: "Slug", value: <code>{r.slug}</code> },
            { term: "Level", value: r.level },
            { term: "Status", value: <StateBadge state={r.status} /> },
            r.archived_at === null
              ? null
              : {
                  term: "Archived",
                  value: (
                    <>
                      <LocalTime at={r.archived_at} />
                      {r.archived_reason === null ? null : <span class="hint"> {r.archived_reason}</span>}
                    </>
                  ),
                },
            { term: "Derived from", value: <a href={`/lessons/${r.source_lesson_id}`}>its lesson</a> },
            r.supersedes_rule_id === null ? null : { term: "Replaces", value: <a href={`/rules/${r.supersedes_rule_id}`}>an earlier rule</a> },
            {
              term: "Created by",
              value: (
                <>
                  {r.created_by.friendly_name}, <LocalTime at={r.created_at} />
                </>
              ),
            },
            { term: "Version", value: r.version },
          ]}
        />
      </section>
      <MarkdownText text={r.body_md} label="Rule" />
      <Triggers triggers={r.triggers} alwaysApply={r.always_apply} />
      {r.enrichment === null ? null : (
        <section class="panel" aria-label="Enrichment">
          <h2>Enrichment</h2>
          <Facts
            facts={[
              { term: "Keywords", value: r.enrichment.keywords.length === 0 ? "—" : r.enrichment.keywords.join(", ") },
              { term: "About", value: `${r.enrichment.token_estimate} tokens` },
              { term: "Related", value: r.enrichment.related.length === 0 ? "—" : r.enrichment.related.map((x) => <a href={`/rules/${x.rule_id}`}>{x.slug} </a>) },
              { term: "Duplicates", value: r.enrichment.duplicates.length === 0 ? "—" : r.enrichment.duplicates.map((x) => <a href={`/rules/${x.rule_id}`}>{x.slug} </a>) },
              {
                term: "Conflicts",
                value:
                  r.enrichment.conflicts.length === 0
                    ? "—"
                    : r.enrichment.conflicts.map((x) => (
                        <span>
                          <a href={`/rules/${x.rule_id}`}>{x.slug}</a> ({x.reason}){" "}
                        </span>
                      )),
              },
              {
                term: "Computed",
                value: (
                  <>
                    <LocalTime at={r.enrichment.computed_at} /> ({r.enrichment.enricher})
                  </>
                ),
              },
            ]}
          />
        </section>
      )}
      <AgentsWrite tools="derive_rule with supersedes_rule_id, archive_rule" />
    </>
  );
}
