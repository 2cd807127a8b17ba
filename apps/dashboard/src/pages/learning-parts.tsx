/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { FilterForm, SelectField, type Choice } from "../components/filter-form.tsx";
import { hrefWith } from "../components/pagination.tsx";
import type { ProjectWire } from "./projects-page.tsx";

/** One select of a filter form: its query parameter, label, choices and the current value. */
export interface FilterSelect {
  name: string;
  label: string;
  choices: readonly Choice[];
  value: string;
}

/**
 * The filter form of the lessons, candidates and rules lists: the project (these records are a
 * project's) and the list's own selects; the list follows them as they change.
 */
export function LearningFilters(props: { path: string; projects: ProjectWire[]; projectId: string; selects: FilterSelect[] }) {
  const projects = props.projects.map((p) => ({ value: p.id, label: p.state === "archived" ? `${p.name} (archived)` : p.name }));
  return (
    <FilterForm action={props.path} live>
      <SelectField name="project" label="Project" choices={projects} selected={props.projectId} />
      {props.selects.map((s) => (
        <SelectField name={s.name} label={s.label} choices={s.choices} selected={s.value} />
      ))}
    </FilterForm>
  );
}

/** Lessons and their candidates are one section: links between the two lists of a project. */
export function LessonTabs(props: { current: "lessons" | "candidates"; projectId: string; pending: number }) {
  return (
    <nav class="actions" aria-label="Lessons and candidates">
      <a href={hrefWith("/lessons", { project: props.projectId })} aria-current={props.current === "lessons" ? "page" : undefined}>
        Lessons
      </a>
      <a href={hrefWith("/lesson-candidates", { project: props.projectId })} aria-current={props.current === "candidates" ? "page" : undefined}>
        Candidates ({props.pending} pending)
      </a>
    </nav>
  );
}

/** Who changes these records: the agents, through the catalogue; a person's session reads them. */
export function AgentsWrite(props: { tools: string }) {
  return (
    <p class="hint" data-agents-write="">
      Agents keep these records with a credential holding <code>write_session_state</code> ({props.tools}); a person's session reads them.
    </p>
  );
}

/** The workspace has no project yet, so it has none of these records. */
export function NoProjects(props: { what: string }) {
  return (
    <EmptyState title={`No ${props.what} yet: the workspace has no project.`}>
      <p>An agent with the manage_projects scope creates one (or the first build session does).</p>
    </EmptyState>
  );
}

/** Text as a page shows markdown: the source, preserved, never rendered as HTML. */
export function MarkdownText(props: { text: string; label: string }) {
  if (props.text.trim() === "") return null;
  return (
    <section aria-label={props.label}>
      <h2>{props.label}</h2>
      <pre>{props.text}</pre>
    </section>
  );
}
