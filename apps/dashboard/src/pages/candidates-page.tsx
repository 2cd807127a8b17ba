/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { CANDIDATE_STATUSES } from "@agentq/core";
import { DataTable } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { Facts } from "../components/facts.tsx";
import { choicesOf } from "../components/filter-form.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import type { CandidateWire, Page } from "../wire.ts";
import { AgentsWrite, LearningFilters, LessonTabs, MarkdownText } from "./learning-parts.tsx";
import type { ProjectWire } from "./projects-page.tsx";

/** The candidate statuses a filter offers: the API's default (pending) first, and "any". */
export const CANDIDATE_CHOICES = [...choicesOf(CANDIDATE_STATUSES), { value: "any", label: "any" }];

/** A project's lesson candidates, highest score first, filtered by status (pending by default). */
export function CandidatesPage(props: { projects: ProjectWire[]; project: ProjectWire; candidates: Page<CandidateWire>; pending: number; query: Record<string, string | undefined> }) {
  const status = props.query.status ?? "pending";
  return (
    <>
      <h1>Lesson candidates</h1>
      <p>What the detectors found in the sessions of {props.project.name} that may be worth a lesson, highest score first.</p>
      <LessonTabs current="candidates" projectId={props.project.id} pending={props.pending} />
      <LearningFilters path="/lesson-candidates" projects={props.projects} projectId={props.project.id} selects={[{ name: "status", label: "Status", choices: CANDIDATE_CHOICES, value: status }]} />
      <DataTable
        label="Lesson candidates"
        rows={props.candidates.items}
        empty={{ title: status === "any" ? "No lesson candidates in this project yet." : `No ${status} lesson candidates in this project.`, children: <p>Candidates appear when an agent runs detect_lesson_candidates over the project's sessions.</p> }}
        rowAttrs={(c) => ({ "data-candidate": c.id })}
        columns={[
          {
            head: "Title",
            cell: (c) => (
              <>
                <a href={`/lesson-candidates/${c.id}`}>{c.title}</a>
                {c.ready ? <span class="badge ok">ready</span> : null}
              </>
            ),
          },
          { head: "Detector", cell: (c) => c.detector.replaceAll("_", " ") },
          { head: "Status", cell: (c) => <StateBadge state={c.status} /> },
          { head: "Score", num: true, cell: (c) => c.score },
          { head: "Sessions", num: true, cell: (c) => c.distinct_session_count },
          { head: "Updated", cell: (c) => <LocalTime at={c.updated_at} /> },
        ]}
      />
      <Pagination path="/lesson-candidates" query={props.query} nextCursor={props.candidates.next_cursor} />
      <AgentsWrite tools="promote_lesson_candidate, reject_lesson_candidate, supersede_lesson_candidate" />
    </>
  );
}

/** One candidate: its text, score, what became of it, and its evidence. */
export function CandidatePage(props: { candidate: CandidateWire }) {
  const c = props.candidate;
  const byLesson = c.superseded_by?.lesson_id ?? null;
  const byCandidate = c.superseded_by?.candidate_id ?? null;
  return (
    <>
      <PageHeading title={c.title} back={{ href: `/lesson-candidates?project=${c.project_id}`, label: "Lesson candidates" }} />
      <section class="panel">
        <Facts
          facts={[
            {
              term: "Status",
              value: (
                <>
                  <StateBadge state={c.status} />
                  {c.reason === null ? null : <span class="hint"> {c.reason}</span>}
                </>
              ),
            },
            c.promoted_lesson_id === null ? null : { term: "Promoted to", value: <a href={`/lessons/${c.promoted_lesson_id}`}>the lesson</a> },
            byLesson === null ? null : { term: "Superseded by", value: <a href={`/lessons/${byLesson}`}>a lesson</a> },
            byCandidate === null ? null : { term: "Superseded by", value: <a href={`/lesson-candidates/${byCandidate}`}>another candidate</a> },
            c.suggested_lesson_id === null
              ? null
              : {
                  term: "Resembles",
                  value: (
                    <>
                      <a href={`/lessons/${c.suggested_lesson_id}`}>an active lesson</a> <span class="hint">(promote into it?)</span>
                    </>
                  ),
                },
            { term: "Detector", value: c.detector.replaceAll("_", " ") },
            {
              term: "Score",
              value: (
                <>
                  {c.score} {c.ready ? <span class="badge ok">ready</span> : <span class="badge neutral">not ready</span>}
                </>
              ),
            },
            { term: "Observed", value: `${c.observation_count} times in ${c.distinct_session_count} sessions` },
            { term: "Keywords", value: c.keywords.length === 0 ? "—" : c.keywords.join(", ") },
          ]}
        />
      </section>
      <MarkdownText text={c.body_md} label="Proposed lesson" />
      <h2>Evidence</h2>
      {c.evidence.length === 0 ? (
        <EmptyState title="No evidence recorded." />
      ) : (
        <ol class="timeline" aria-label="Evidence">
          {c.evidence.map((e) => (
            <li data-evidence={e.ref_id}>
              <LocalTime at={e.observed_at} /> · {e.kind.replaceAll("_", " ")}
              <p>{e.excerpt === "" ? "—" : e.excerpt}</p>
            </li>
          ))}
        </ol>
      )}
      <AgentsWrite tools="promote_lesson_candidate, reject_lesson_candidate" />
    </>
  );
}
