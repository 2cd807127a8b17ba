/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { LESSON_STATUSES } from "@agentq/core";
import { DataTable } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { Facts } from "../components/facts.tsx";
import { choicesOf } from "../components/filter-form.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import type { LessonDetailWire, LessonWire, Page, RuleWire } from "../wire.ts";
import { AgentsWrite, LearningFilters, LessonTabs, MarkdownText } from "./learning-parts.tsx";
import type { ProjectWire } from "./projects-page.tsx";

/** A project's lessons, by last observation, filtered by status. */
export function LessonsPage(props: { projects: ProjectWire[]; project: ProjectWire; lessons: Page<LessonWire>; pending: number; query: Record<string, string | undefined> }) {
  const status = props.query.status ?? "";
  return (
    <>
      <h1>Lessons</h1>
      <p>What the agents of {props.project.name} learned, most recently observed first.</p>
      <LessonTabs current="lessons" projectId={props.project.id} pending={props.pending} />
      <LearningFilters path="/lessons" projects={props.projects} projectId={props.project.id} selects={[{ name: "status", label: "Status", choices: choicesOf(LESSON_STATUSES, ""), value: status }]} />
      <DataTable
        label="Lessons"
        rows={props.lessons.items}
        empty={{ title: status === "" ? "No lessons in this project yet." : `No ${status} lessons in this project.`, children: <p>Agents record lessons, or promote the candidates the detectors find in their sessions.</p> }}
        rowAttrs={(l) => ({ "data-lesson": l.slug })}
        columns={[
          { head: "Title", cell: (l) => <a href={`/lessons/${l.id}`}>{l.title}</a> },
          { head: "Slug", cell: (l) => <code>{l.slug}</code> },
          { head: "Status", cell: (l) => <StateBadge state={l.status} /> },
          { head: "Observed", num: true, cell: (l) => l.observation_count },
          { head: "Sessions", num: true, cell: (l) => l.distinct_session_count },
          { head: "Last observed", cell: (l) => <LocalTime at={l.last_observed_at} /> },
        ]}
      />
      <Pagination path="/lessons" query={props.query} nextCursor={props.lessons.next_cursor} />
      <AgentsWrite tools="create_lesson, observe_lesson, set_lesson_status" />
    </>
  );
}

/** One lesson: what to do and why, its status, the rules derived from it, its last observations. */
export function LessonPage(props: { lesson: LessonDetailWire; rules: RuleWire[] }) {
  const l = props.lesson;
  return (
    <>
      <PageHeading title={l.title} back={{ href: `/lessons?project=${l.project_id}`, label: "Lessons" }} />
      <section class="panel">
        <Facts
          facts={[
            { term: "Slug", value: <code>{l.slug}</code> },
            {
              term: "Status",
              value: (
                <>
                  <StateBadge state={l.status} />
                  {l.status_reason === null ? null : <span class="hint"> {l.status_reason}</span>}
                </>
              ),
            },
            l.superseded_by_id === null ? null : { term: "Superseded by", value: <a href={`/lessons/${l.superseded_by_id}`}>the lesson that replaces it</a> },
            { term: "Tags", value: l.tags.length === 0 ? "—" : l.tags.map((t) => <code>{t} </code>) },
            { term: "Observed", value: `${l.observation_count} times in ${l.distinct_session_count} sessions` },
            { term: "First observed", value: <LocalTime at={l.first_observed_at} /> },
            { term: "Last observed", value: <LocalTime at={l.last_observed_at} /> },
            {
              term: "Recorded by",
              value: (
                <>
                  {l.created_by.friendly_name}, <LocalTime at={l.created_at} />
                </>
              ),
            },
            l.source_candidate_id === null ? null : { term: "Promoted from", value: <a href={`/lesson-candidates/${l.source_candidate_id}`}>a lesson candidate</a> },
          ]}
        />
      </section>
      <MarkdownText text={l.body_md} label="Lesson" />
      <MarkdownText text={l.why_md} label="Why" />
      <h2>Rules derived from it</h2>
      {props.rules.length === 0 ? (
        <EmptyState title="No rule derives from this lesson." />
      ) : (
        <ul>
          {props.rules.map((r) => (
            <li data-rule={r.slug}>
              <a href={`/rules/${r.id}`}>{r.title}</a> <StateBadge state={r.status} />
            </li>
          ))}
        </ul>
      )}
      <h2>Observations</h2>
      {l.observations.length === 0 ? (
        <EmptyState title="No observations yet." />
      ) : (
        <ol class="timeline" aria-label="Observations, newest first">
          {l.observations.map((o) => (
            <li data-observation={o.id}>
              <LocalTime at={o.at} /> · {o.by.friendly_name}
              <p>{o.note}</p>
              {o.evidence === null ? null : (
                <p class="hint">
                  Evidence ({o.evidence.kind}): <code>{o.evidence.ref}</code>
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
      <AgentsWrite tools="observe_lesson, set_lesson_status, derive_rule" />
    </>
  );
}
